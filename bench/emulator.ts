// Emulator benchmark: memory per DeepResearch task with 10,000 in flight, and status reads per second
// on loopback, side by side with a bare node:http server answering the same bytes (the HTTP floor).
// Server and load generator share one process, so the figures are for one core.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { ResearchClient } from '../src/api';
import { startEmulator } from '../src/emulator/server';

const TASKS = Number(process.env.BENCH_TASKS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONCURRENCY = 32;

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const heapMb = (): number => {
  gc();
  return process.memoryUsage().heapUsed / 1_048_576;
};

async function readsPerSecond(origin: string, paths: string[], headers: Record<string, string>): Promise<number> {
  const pool = new Pool(origin, { connections: CONCURRENCY, pipelining: 1 });
  const deadline = Date.now() + SECONDS * 1000;
  let done = 0;
  let failed = 0;
  const worker = async (offset: number): Promise<void> => {
    for (let index = offset; Date.now() < deadline; index += CONCURRENCY) {
      const response = await pool.request({ method: 'GET', path: paths[index % paths.length]!, headers });
      await response.body.text();
      if (response.statusCode === 200) done++;
      else failed++;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, offset) => worker(offset)));
  await pool.close();
  if (failed > 0) throw new Error(`${failed} status reads failed`);
  return done / ((Date.now() - started) / 1000);
}

async function main(): Promise<void> {
  const before = heapMb();
  const rssBefore = process.memoryUsage().rss / 1_048_576;
  const emulator = await startEmulator({
    seed: 1,
    defaultCreditsUsd: 1_000_000,
    rateLimit: { requestsPerSecond: 1_000_000, burst: 1_000_000 },
    research: { capacity: 1_000_000 },
  });
  const client = new ResearchClient({ apiKey: emulator.defaultApiKey, baseUrl: emulator.url });
  const created = Date.now();
  const ids: string[] = [];
  for (let start = 0; start < TASKS; start += 100) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(100, TASKS - start) }, (_, index) =>
        client.createTask({
          query: `Benchmark task ${start + index}: market sizing for product line ${start + index}`,
          mode: 'standard',
          metadata: { item: start + index },
        }),
      ),
    );
    ids.push(...batch.map((task) => task.deepresearch_id));
  }
  const createSeconds = (Date.now() - created) / 1000;
  const after = heapMb();
  const rssAfter = process.memoryUsage().rss / 1_048_576;
  const statusPaths = ids.map((id) => `${new URL(emulator.url).pathname}/deepresearch/tasks/${id}/status`);
  const sample = await client.getTask(ids[0]!);
  const body = JSON.stringify(sample);

  const bare = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareOrigin = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

  const rounds: Array<{ emulator: number; bare: number }> = [];
  for (let round = 0; round < 2; round++) {
    rounds.push({
      emulator: await readsPerSecond(emulator.origin, statusPaths, { 'x-api-key': emulator.defaultApiKey }),
      bare: await readsPerSecond(bareOrigin, ['/'], {}),
    });
  }
  const best = { emulator: Math.max(...rounds.map((r) => r.emulator)), bare: Math.max(...rounds.map((r) => r.bare)) };
  const inFlight = (await client.listTasks({ limit: 100 })).filter((task) => task.status === 'running' || task.status === 'queued').length;

  console.log(`emulator benchmark (node ${process.version}, one process = one core, ${CONCURRENCY} requests in flight, ${SECONDS} s per round)`);
  console.table({
    'tasks created': { value: TASKS, note: `${(TASKS / createSeconds).toFixed(0)} creates/s over HTTP` },
    'heap growth (MB)': {
      value: +(after - before).toFixed(1),
      note: `goal: 10,000 tasks in flight under 200 MB${(globalThis as { gc?: unknown }).gc ? '' : ' (run with --expose-gc for exact figures)'}`,
    },
    'RSS growth (MB)': {
      value: Math.round(rssAfter - rssBefore),
      note: `process RSS ${Math.round(rssBefore)} MB before the tasks (Node, SWC, undici), ${Math.round(rssAfter)} MB after`,
    },
    'bytes per task': { value: Math.round(((after - before) * 1_048_576) / TASKS), note: `${inFlight}/100 most recent still in flight` },
    'status reads/s (emulator)': { value: Math.round(best.emulator), note: 'goal: at least 2,000' },
    'status reads/s (bare node:http, same body)': { value: Math.round(best.bare), note: 'the HTTP floor' },
    'ratio emulator / bare': { value: +(best.emulator / best.bare).toFixed(2), note: `status body ${body.length} bytes` },
  });
  await client.close();
  await emulator.close();
  bare.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
