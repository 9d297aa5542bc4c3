/**
 * Webhook intake throughput on loopback: verified webhooks per second and p99 latency, beside a bare
 * fastify route doing no verification, in the same run. Run with `npm run bench:intake`.
 * Optional arguments: requests per route (default 20000), connections (default 50).
 *
 * The verified webhooks signal real workflows on a real Temporal dev server (the same search as `rp
 * dev`): workflows started on a task queue no worker polls, so each signal is written to their history
 * and nothing else runs. A third line sends deliveries whose signature does not match (401): the full
 * check with no Temporal call, to show what verification alone costs; a fourth sends the same signals
 * straight from the Temporal client (no HTTP), the ceiling the server sets for the verified route.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import Fastify from 'fastify';
import { Pool } from 'undici';
import { InMemoryWebhookSecretStore } from '../src/activities';
import { signWebhook, webhookRouteToken } from '../src/api';
import { buildIntake } from '../src/intake';
import { openTemporalServer } from '../src/temporal/server';

const REQUESTS = Number(process.argv[3] ?? 20_000);
const CONNECTIONS = Number(process.argv[4] ?? 50);
const WORKFLOWS = 8;
const ROUNDS = 4;

interface Delivery {
  path: string;
  body: string;
  headers: Record<string, string>;
}

/** `count` distinct signed deliveries (each a new delivery id, so none is a duplicate), spread over the workflows. */
function deliveries(count: number, workflowIds: string[], intakeKey: string, secret: string, signWith: string = secret): Delivery[] {
  return Array.from({ length: count }, (_, index) => {
    const workflowId = workflowIds[index % workflowIds.length]!;
    const body = JSON.stringify({
      event: 'task.completed',
      deepresearch_id: 'dr_bench',
      status: 'completed',
      delivery_id: `whd_${index}_${randomUUID()}`,
      cost: 0.1,
    });
    const signed = signWebhook({ secret: signWith, body });
    return {
      path: `/webhooks/research/${encodeURIComponent(workflowId)}/${webhookRouteToken(intakeKey, workflowId)}`,
      body,
      headers: { 'content-type': 'application/json', ...signed.headers },
    };
  });
}

interface Figures {
  name: string;
  requests: number;
  ok: number;
  rps: number;
  p50: number;
  p99: number;
}

/** One round of one route: what was sent, how long it took, each request's latency. */
interface Round {
  ok: number;
  count: number;
  seconds: number;
  latencies: number[];
}

/** The Temporal ceiling: the same signals sent straight from the client, `CONNECTIONS` in flight, no HTTP. */
async function rawSignals(client: Client, workflowIds: string[], count: number): Promise<Round> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < count) {
        const index = next++;
        const at = performance.now();
        await client.workflow
          .getHandle(workflowIds[index % workflowIds.length]!)
          .signal('webhookReceived', { deepresearchId: 'dr_bench', status: 'completed' });
        latencies.push(performance.now() - at);
      }
    }),
  );
  return { ok: count, count, seconds: (performance.now() - started) / 1000, latencies };
}

/** Sends every item once over a keep-alive pool, `CONNECTIONS` in flight; wall time and per-request latency are measured here. */
async function load(url: string, items: Delivery[]): Promise<Round> {
  const pool = new Pool(url, { connections: CONNECTIONS, pipelining: 1 });
  const latencies: number[] = [];
  let ok = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        const at = performance.now();
        const response = await pool.request({ method: 'POST', path: item.path, headers: item.headers, body: item.body });
        await response.body.dump();
        latencies.push(performance.now() - at);
        if (response.statusCode >= 200 && response.statusCode < 300) ok++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return { ok, count: items.length, seconds, latencies };
}

/** The rounds of one route as one row: requests over the summed time, percentiles over every request. */
function figures(name: string, rounds: Round[]): Figures {
  const latencies = rounds.flatMap((round) => round.latencies).sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  const requests = rounds.reduce((sum, round) => sum + round.count, 0);
  const seconds = rounds.reduce((sum, round) => sum + round.seconds, 0);
  return { name, requests, ok: rounds.reduce((sum, round) => sum + round.ok, 0), rps: requests / seconds, p50: at(0.5), p99: at(0.99) };
}

async function main(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const server = await openTemporalServer({ allowInstall: true, log });
  const client = new Client({ connection: server.connection, namespace: server.namespace });
  const intakeKey = randomBytes(32).toString('hex');
  const secret = randomBytes(32).toString('hex');
  const secrets = new InMemoryWebhookSecretStore();
  await secrets.put('dr_bench', secret);
  const taskQueue = `bench-intake-unpolled-${Date.now()}`;
  const workflowIds = Array.from({ length: WORKFLOWS }, (_, index) => `bench-intake/${Date.now()}/${index}`);
  for (const workflowId of workflowIds) await client.workflow.start('researchTaskWorkflow', { workflowId, taskQueue, args: [{ request: { query: 'bench' } }] });

  const { app } = await buildIntake({
    client,
    secrets,
    intakeKey,
    tokens: [],
    pipelinesDir: 'pipelines',
    taskQueue,
    namespace: server.namespace,
    logger: false,
  });
  const bare = Fastify({ logger: false });
  bare.post('/webhooks/research/:workflowId/:token', async () => ({ delivered: true }));
  const intakeUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
  try {
    await load(bareUrl, deliveries(2_000, workflowIds, intakeKey, secret));
    await load(intakeUrl, deliveries(2_000, workflowIds, intakeKey, secret));
    // Alternating rounds, so drift on a shared machine (and the dev server catching up on signals) hits every route alike.
    const perRound = Math.ceil(REQUESTS / ROUNDS);
    const rounds: Round[][] = [[], [], [], []];
    for (let round = 0; round < ROUNDS; round++) {
      rounds[0]!.push(await load(bareUrl, deliveries(perRound, workflowIds, intakeKey, secret)));
      rounds[1]!.push(await load(intakeUrl, deliveries(perRound, workflowIds, intakeKey, secret, randomBytes(32).toString('hex'))));
      rounds[2]!.push(await load(intakeUrl, deliveries(perRound, workflowIds, intakeKey, secret)));
      rounds[3]!.push(await rawSignals(client, workflowIds, perRound));
    }
    const rows = [
      figures('bare fastify route (no verification)', rounds[0]!),
      figures('intake: full check, bad signature (401)', rounds[1]!),
      figures('intake: verified + signal (real server)', rounds[2]!),
      figures('Temporal signal alone (client, no HTTP)', rounds[3]!),
    ];
    const base = rows[0]!.rps;
    const table = [
      `intake bench: ${REQUESTS} requests per route in ${ROUNDS} alternating rounds, ${CONNECTIONS} in flight (undici pool, keep-alive), loopback, loggers off, load generator in the same process (Node ${process.version})`,
      `signals go to ${WORKFLOWS} running workflows on a real Temporal dev server (${server.source}), task queue without a worker`,
      '',
      `${'route'.padEnd(42)} ${'2xx'.padStart(7)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'vs bare'.padStart(8)}`,
      ...rows.map(
        (row) =>
          `${row.name.padEnd(42)} ${String(row.ok).padStart(7)} ${row.rps.toFixed(0).padStart(8)} ${row.p50.toFixed(1).padStart(7)} ${row.p99.toFixed(1).padStart(7)} ${(row.rps / base).toFixed(2).padStart(8)}`,
      ),
    ];
    table.push(
      '',
      `verified route / Temporal signal alone: ${(rows[2]!.rps / rows[3]!.rps).toFixed(2)} (the signal is the ceiling); full check / bare: ${(rows[1]!.rps / base).toFixed(2)}`,
    );
    process.stdout.write(`${table.join('\n')}\n`);
    const description = await client.workflow.getHandle(workflowIds[0]!).describe();
    process.stdout.write(`history of one signalled workflow: ${description.historyLength} events\n`);
  } finally {
    for (const workflowId of workflowIds)
      await client.workflow
        .getHandle(workflowId)
        .terminate('bench over')
        .catch(() => undefined);
    await app.close();
    await bare.close();
    await server.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
