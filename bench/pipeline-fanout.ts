// Fan-out benchmark: a pipeline run over N items (10,000 by default) on a real Temporal dev server,
// beside a bare loop of the same service calls in the same window, in one process: events per history
// run, largest payload, continue-as-new count, worker memory, CPU per item and items per second.
// Search items (single calls, run as activities) keep the service's own time out of the figures.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { ResearchClient } from '../src/api';
import { createActivities, InMemoryWebhookSecretStore, LocalArtifactStore } from '../src/activities';
import { startEmulator } from '../src/emulator/server';
import { itemSource, parsePipelineDefinition, resolveParameters } from '../src/pipelines';
import { type TemporalServer } from '../src/temporal/server';
import type { PipelineRunInput, PipelineRunResult } from '../src/domain/pipeline-types';
import { chainHistories, largestPayloadIn } from '../test/support/server/history';
import { log, positiveArg, printTable, runIfEntry, withBenchServer, type BenchRow } from './table';

interface Figures {
  seconds: number;
  itemsPerSecond: number;
  runs: number;
  maxEventsPerRun: number;
  largestPayloadBytes: number;
  cpuMsPerItem: number;
  peakRssMb: number;
}

async function measure(client: Client, workflowId: string, items: number, start: () => Promise<unknown>): Promise<Figures> {
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 200);
  const cpu = process.cpuUsage();
  const started = Date.now();
  await start();
  const seconds = (Date.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  clearInterval(sampler);
  const histories = await chainHistories(client, workflowId);
  return {
    seconds,
    itemsPerSecond: items / seconds,
    runs: histories.length,
    maxEventsPerRun: Math.max(...histories.map((history) => history.events?.length ?? 0)),
    largestPayloadBytes: Math.max(...histories.map(largestPayloadIn)),
    cpuMsPerItem: (used.user + used.system) / 1000 / items,
    peakRssMb: peakRss / 1_048_576,
  };
}

/** Runs `items` searches through pipelineRunWorkflow and through the bare loop on `server`, one after the other. */
export async function runFanoutBench(
  server: TemporalServer,
  options: { items?: number; window?: number } = {},
): Promise<{ pipeline: Figures; bare: Figures; rows: BenchRow[] }> {
  const ITEMS = options.items ?? 10_000;
  const WINDOW = options.window ?? 50;
  const dir = await mkdtemp(path.join(tmpdir(), 'rp-bench-fanout-'));
  const emulator = await startEmulator({ seed: 'bench', defaultCreditsUsd: 1_000_000, rateLimit: { requestsPerSecond: 1_000_000, burst: 1_000_000 } });
  const api = new ResearchClient({ baseUrl: emulator.url, apiKey: emulator.defaultApiKey });
  const taskQueue = `bench-fanout-${Date.now()}`;
  const activities = {
    ...createActivities({ api, store: new LocalArtifactStore(path.join(dir, 'store')), secrets: new InMemoryWebhookSecretStore() }),
    benchSearch: async ({ query }: { query: string }) =>
      (await api.search({ query, search_type: 'web', max_num_results: 2, max_price: 1, response_length: 200 })).results.length,
  };
  const worker = await Worker.create({
    connection: server.nativeConnection,
    namespace: server.namespace,
    taskQueue,
    workflowsPath: require.resolve('./workflows'),
    activities,
    maxConcurrentActivityTaskExecutions: WINDOW * 2,
  });
  const client = new Client({ connection: server.connection, namespace: server.namespace });
  try {
    return await worker.runUntil(async () => {
      const rows = Array.from({ length: ITEMS }, (_, index) => JSON.stringify({ id: `t${index + 1}`, topic: `topic number ${index + 1}` })).join('\n');
      await writeFile(path.join(dir, 'items.jsonl'), `${rows}\n`);
      const yaml = `name: fanout\ninput:\n  jsonl: items.jsonl\n  key: "{{ item.id }}"\nstep:\n  search:\n    query: "{{ item.topic }}"\n    search_type: web\n    max_num_results: 2\n    max_price: 1\n    response_length: 200\nconcurrency: ${WINDOW}\nstart_rate_per_second: 100\nbudget_usd: 100000\n`;
      const file = path.join(dir, 'pipeline.yaml');
      await writeFile(file, yaml);
      const loaded = parsePipelineDefinition(yaml, file);
      const stamp = Date.now();
      const input: PipelineRunInput = {
        definition: loaded.definition,
        source: itemSource(loaded),
        params: resolveParameters(loaded.definition.parameters, {}, { textValues: true }),
        runKey: `bench-${stamp}`,
      };
      log(`fan-out: ${ITEMS} items through pipelineRunWorkflow (window ${WINDOW})…`);
      const pipelineId = `pipeline-run/fanout/bench-${stamp}`;
      const pipeline = await measure(client, pipelineId, ITEMS, async () => {
        const result = (await client.workflow.execute('pipelineRunWorkflow', { taskQueue, workflowId: pipelineId, args: [input] })) as PipelineRunResult;
        if (result.counts.completed !== ITEMS) throw new Error(`pipeline completed ${result.counts.completed} of ${ITEMS} items`);
      });
      log(`fan-out: ${ITEMS} items through the bare loop…`);
      const bareId = `bench/bare-loop-${stamp}`;
      const bare = await measure(client, bareId, ITEMS, () =>
        client.workflow.execute('bareLoopWorkflow', { taskQueue, workflowId: bareId, args: [{ queries: ITEMS, window: WINDOW, perRun: 2_500 }] }),
      );
      const bench = `fan-out ${ITEMS.toLocaleString('en')} items, window ${WINDOW}`;
      const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
      return {
        pipeline,
        bare,
        rows: [
          {
            bench,
            figure: 'items per second',
            measured: pipeline.itemsPerSecond.toFixed(0),
            baseline: `${bare.itemsPerSecond.toFixed(0)} (bare loop)`,
            goal: '',
          },
          {
            bench,
            figure: 'most events in one history run',
            measured: String(pipeline.maxEventsPerRun),
            baseline: String(bare.maxEventsPerRun),
            goal: '< 10,240',
            met: pipeline.maxEventsPerRun < 10_240,
          },
          { bench, figure: 'runs in the continue-as-new chain', measured: String(pipeline.runs), baseline: String(bare.runs), goal: '' },
          {
            bench,
            figure: 'largest payload',
            measured: kb(pipeline.largestPayloadBytes),
            baseline: kb(bare.largestPayloadBytes),
            goal: '< 64 KB',
            met: pipeline.largestPayloadBytes < 64 * 1024,
          },
          {
            bench,
            figure: 'orchestration CPU per item',
            measured: `${pipeline.cpuMsPerItem.toFixed(2)} ms`,
            baseline: `${bare.cpuMsPerItem.toFixed(2)} ms`,
            goal: '',
          },
          {
            bench,
            figure: 'peak RSS (worker, emulator, client)',
            measured: `${pipeline.peakRssMb.toFixed(0)} MB`,
            baseline: `${bare.peakRssMb.toFixed(0)} MB`,
            goal: '',
          },
        ],
      };
    });
  } finally {
    await api.close();
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

runIfEntry(module, async () => {
  const items = positiveArg(0, 'items', Number(process.env.BENCH_ITEMS ?? 10_000), true);
  const window = positiveArg(1, 'window', 50, true);
  await withBenchServer({ preciseTimers: false }, async (server) => {
    const { pipeline, bare, rows } = await runFanoutBench(server, { items, window });
    printTable(rows);
    process.stdout.write(
      `pipeline items/s vs bare loop: ${(pipeline.itemsPerSecond / bare.itemsPerSecond).toFixed(2)}; wall time ${pipeline.seconds.toFixed(1)} s vs ${bare.seconds.toFixed(1)} s\n`,
    );
  });
});
