// Fan-out benchmark: a pipeline run over N items (10,000 by default) on a real Temporal dev server,
// beside a bare loop of the same service calls in the same window, in one worker process (the emulator
// runs in a child process, as the service is remote in production): events per history run, largest
// payload, continue-as-new count, worker memory, CPU per item and items per second.
// Search items (single calls, run as activities) keep the service's own time out of the figures;
// `--step=answer` runs Answer items (a streamed call) instead.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { ResearchClient } from '../src/api';
import { InMemoryWebhookSecretStore, LocalArtifactStore } from '../src/activities';
import { itemSource, parsePipelineDefinition, resolveParameters } from '../src/pipelines';
import { type TemporalServer } from '../src/temporal/server';
import { createWorkerOptions } from '../src/worker';
import { compactWorkerHeap } from '../src/worker-heap';
import type { PipelineRunInput, PipelineRunResult } from '../src/domain/pipeline-types';
import { chainHistories, largestPayloadIn } from '../test/support/server/history';
import type { BenchStep } from './workflows/bare-loop';
import { timelineLines } from './history-timeline';
import { startEmulatorProcess, type EmulatorProcess } from './emulator-process';
import { flagValue, hasFlag, log, positiveArg, printTable, runIfEntry, withBenchServer, type BenchRow } from './table';

/** What one side (the pipeline, or the bare loop) measured. */
export interface Figures {
  seconds: number;
  itemsPerSecond: number;
  runs: number;
  maxEventsPerRun: number;
  largestPayloadBytes: number;
  /** CPU of the worker's process (worker, activities, clients; every thread) per item. */
  cpuMsPerItem: number;
  /** The part of cpuMsPerItem spent in the kernel (file and network system calls). */
  systemCpuMsPerItem: number;
  /** Highest RSS of the worker's process while this side ran. */
  peakRssMb: number;
  /** RSS of the worker's process when this side started. */
  startRssMb: number;
  /** The emulator's process (the service's side): CPU per item while this side ran, its RSS at the side's end and its highest RSS so far. */
  emulator: { cpuMsPerItem: number; rssMb: number; maxRssMb: number; chargeRecords: number };
  /**
   * With `node --expose-gc`: the main thread's heap in use and the process's RSS just after a full
   * collection at this side's end (what is held, not garbage waiting for the collector).
   */
  afterGc?: { rssMb: number; heapUsedMb: number; heapTotalMb: number; externalMb: number };
}

/** The figures a script checks: `--json` prints this object last. */
export interface FanoutSummary {
  items: number;
  window: number;
  step: BenchStep;
  pipelineItemsPerSec: number;
  bareItemsPerSec: number;
  ratio: number;
  cpuMsPerItem: number;
  bareCpuMsPerItem: number;
  /** The kernel's part of cpuMsPerItem (file and network system calls): on a disk where creating a file is slow, most of what varies. */
  systemCpuMsPerItem: number;
  bareSystemCpuMsPerItem: number;
  /** Highest RSS of the worker's process (worker, activities, clients; not the emulator) on the pipeline side. */
  peakRssMb: number;
  bareRssMb: number;
  /** With `node --expose-gc`: the worker process's RSS just after a full collection at the pipeline side's end. */
  rssAfterGcMb?: number;
  /** Highest RSS of the emulator's process over the whole bench (the service's side, for reference). */
  emulatorPeakRssMb: number;
  /** CPU of the emulator's process per pipeline item (not in cpuMsPerItem). */
  emulatorCpuMsPerItem: number;
  maxEventsPerRun: number;
  runs: number;
  largestPayloadBytes: number;
  pipelineSeconds: number;
  bareSeconds: number;
  /** Load average (1 minute) when the bench started and ended: the machine's other work. */
  loadAverage: [number, number];
}

const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

/**
 * With BENCH_PROFILE=DIR, profiles the main thread (activities, clients, the SDK's JavaScript)
 * while `run` runs and writes `DIR/<name>.cpuprofile` (`bench/profile-summary.ts` reads it). The
 * workflow thread is profiled with `node --cpu-prof` instead (it is small; see bench/README.md).
 */
async function profiled<T>(name: string, run: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return await run();
  await mkdir(dir, { recursive: true });
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

async function measure(client: Client, emulator: EmulatorProcess, workflowId: string, items: number, start: () => Promise<unknown>): Promise<Figures> {
  const emulatorBefore = await emulator.report();
  const startRss = process.memoryUsage().rss;
  let peakRss = startRss;
  let ticks = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    // BENCH_RSS_TRACE=1: the worker process's RSS and main heap every 2 s, to see the slope.
    if (process.env.BENCH_RSS_TRACE && ++ticks % 10 === 0) {
      const memory = process.memoryUsage();
      log(
        `${ticks / 5} s: RSS ${(memory.rss / 1_048_576).toFixed(0)} MB, main heap ${(memory.heapUsed / 1_048_576).toFixed(0)} MB used of ${(memory.heapTotal / 1_048_576).toFixed(0)}`,
      );
    }
  }, 200);
  const cpu = process.cpuUsage();
  const started = Date.now();
  await start();
  const seconds = (Date.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  clearInterval(sampler);
  const emulatorAfter = await emulator.report();
  const gc = (globalThis as { gc?: () => void }).gc;
  let afterGc: Figures['afterGc'];
  if (gc) {
    gc();
    const memory = process.memoryUsage();
    afterGc = {
      rssMb: memory.rss / 1_048_576,
      heapUsedMb: memory.heapUsed / 1_048_576,
      heapTotalMb: memory.heapTotal / 1_048_576,
      externalMb: memory.external / 1_048_576,
    };
  }
  const histories = await chainHistories(client, workflowId);
  // BENCH_TIMELINE=1: where each run's wall time went (activity waits and runs, workflow task turns).
  if (process.env.BENCH_TIMELINE) for (const line of timelineLines(histories)) log(`${workflowId}: ${line}`);
  return {
    seconds,
    itemsPerSecond: items / seconds,
    runs: histories.length,
    maxEventsPerRun: Math.max(...histories.map((history) => history.events?.length ?? 0)),
    largestPayloadBytes: Math.max(...histories.map(largestPayloadIn)),
    cpuMsPerItem: (used.user + used.system) / 1000 / items,
    systemCpuMsPerItem: used.system / 1000 / items,
    peakRssMb: peakRss / 1_048_576,
    startRssMb: startRss / 1_048_576,
    emulator: {
      cpuMsPerItem: (emulatorAfter.cpuMs - emulatorBefore.cpuMs) / items,
      rssMb: emulatorAfter.rssMb,
      maxRssMb: emulatorAfter.maxRssMb,
      chargeRecords: emulatorAfter.chargeRecords,
    },
    ...(afterGc ? { afterGc } : {}),
  };
}

/** The step each item runs, in the definition's YAML. */
function stepYaml(step: BenchStep): string {
  if (step === 'answer') return `step:\n  answer:\n    query: "{{ item.topic }}"\n    search_type: web\n`;
  return `step:\n  search:\n    query: "{{ item.topic }}"\n    search_type: web\n    max_num_results: 2\n    max_price: 1\n    response_length: 200\n`;
}

/**
 * Runs `items` calls through pipelineRunWorkflow and through the bare loop on `server`, one after the
 * other, on a worker built with the production options (`createWorkerOptions`: interceptors, payload
 * codec). `only` runs one side (for a profile of it alone).
 */
export async function runFanoutBench(
  server: TemporalServer,
  options: { items?: number; window?: number; step?: BenchStep; only?: 'pipeline' | 'bare'; warmup?: number } = {},
): Promise<{ pipeline?: Figures; bare?: Figures; rows: BenchRow[]; summary?: FanoutSummary }> {
  const ITEMS = options.items ?? 10_000;
  const WINDOW = options.window ?? 50;
  const STEP = options.step ?? 'search';
  const WARMUP = options.warmup ?? 0;
  const loadBefore = (await import('node:os')).loadavg()[0]!;
  const dir = await mkdtemp(path.join(tmpdir(), 'rp-bench-fanout-'));
  const emulator = await startEmulatorProcess({
    seed: 'bench',
    defaultCreditsUsd: 1_000_000_000,
    rateLimit: { requestsPerSecond: 1_000_000, burst: 1_000_000 },
  });
  const api = new ResearchClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  const taskQueue = `bench-fanout-${Date.now()}`;
  const production = createWorkerOptions(
    { temporal: { namespace: server.namespace, taskQueue } },
    { api, store: new LocalArtifactStore(path.join(dir, 'store')), secrets: new InMemoryWebhookSecretStore() },
    require.resolve('./workflows'),
  );
  const activities = {
    ...(production.activities as Record<string, (...args: never[]) => unknown>),
    benchSearch: async ({ query }: { query: string }) =>
      (await api.search({ query, search_type: 'web', max_num_results: 2, max_price: 1, response_length: 200 })).results.length,
    benchAnswer: async ({ query }: { query: string }) => {
      let characters = 0;
      for await (const event of api.answer({ query, search_type: 'web' })) if (event.type === 'content') characters += event.delta.length;
      return characters;
    },
  };
  // Bundled ahead of time in a child process, as a deployment would: webpack's memory stays out of the figures.
  const codePath = path.join(dir, 'workflow-bundle.js');
  await promisify(execFile)(process.execPath, [require.resolve('./run.js'), require.resolve('./bundle-workflows.ts'), codePath]);
  const { workflowsPath: _bundled, interceptors, ...settings } = production;
  // The heap settings `rp worker` applies (WORKER_HEAP, compact by default), before the workflow threads start.
  const heap = compactWorkerHeap(process.env.WORKER_HEAP === 'node' ? 'node' : 'compact');
  log(`worker heap: ${process.env.WORKER_HEAP === 'node' ? "Node's defaults" : heap.applied.join(' ') || 'as the process was started'}`);
  const worker = await Worker.create({
    ...settings,
    workflowBundle: { codePath },
    interceptors: { activity: interceptors?.activity ?? [] },
    connection: server.nativeConnection,
    activities,
    maxConcurrentActivityTaskExecutions: WINDOW * 2,
    ...workerOverrides(),
  });
  // Its own connection, taking messages past gRPC's default 4 MB: a page of a run's history (up to ~4 MB of
  // events, near the server's continue-as-new suggestion) can be larger than that.
  const connection = await Connection.connect({ address: server.address, channelArgs: { 'grpc.max_receive_message_length': 64 * 1024 * 1024 } });
  const client = new Client({ connection, namespace: server.namespace });
  try {
    return await worker.runUntil(async () => {
      // A pipeline run over `count` items and a bare loop of as many calls, with their workflow ids.
      const pipelineInput = async (count: number, name: string): Promise<PipelineRunInput> => {
        const rows = Array.from({ length: count }, (_, index) => JSON.stringify({ id: `t${index + 1}`, topic: `topic number ${index + 1}` })).join('\n');
        await writeFile(path.join(dir, `${name}.jsonl`), `${rows}\n`);
        const yaml = `name: fanout\ninput:\n  jsonl: ${name}.jsonl\n  key: "{{ item.id }}"\n${stepYaml(STEP)}concurrency: ${WINDOW}\nstart_rate_per_second: 1000\nbudget_usd: 1000000\n`;
        const file = path.join(dir, `${name}.yaml`);
        await writeFile(file, yaml);
        const loaded = parsePipelineDefinition(yaml, file);
        return {
          definition: loaded.definition,
          source: itemSource(loaded),
          params: resolveParameters(loaded.definition.parameters, {}, { textValues: true }),
          runKey: `${name}-${Date.now()}`,
        };
      };
      const runPipeline = async (count: number, workflowId: string, input: PipelineRunInput) => {
        const result = (await client.workflow.execute('pipelineRunWorkflow', { taskQueue, workflowId, args: [input] })) as PipelineRunResult;
        if (result.counts.completed !== count) throw new Error(`pipeline completed ${result.counts.completed} of ${count} items`);
      };
      const runBare = (count: number, workflowId: string) =>
        client.workflow.execute('bareLoopWorkflow', { taskQueue, workflowId, args: [{ queries: count, window: WINDOW, perRun: 2_500, step: STEP }] });
      const stamp = Date.now();
      // --warmup=N: N items through each side first, unmeasured, so neither side's figures include the
      // worker's start-up (compiling the SDK's and the project's code, the workflow thread's first context).
      if (WARMUP > 0) {
        log(`warm-up: ${WARMUP} ${STEP} items through each side (not measured)…`);
        await runPipeline(WARMUP, `pipeline-run/fanout/warmup-${stamp}`, await pipelineInput(WARMUP, 'warmup'));
        await runBare(WARMUP, `bench/bare-loop-warmup-${stamp}`);
      }
      const input = await pipelineInput(ITEMS, 'bench');
      let pipeline: Figures | undefined;
      let bare: Figures | undefined;
      if (options.only !== 'bare') {
        log(`fan-out: ${ITEMS} ${STEP} items through pipelineRunWorkflow (window ${WINDOW})…`);
        const pipelineId = `pipeline-run/fanout/bench-${stamp}`;
        pipeline = await measure(client, emulator, pipelineId, ITEMS, () => profiled(`pipeline-${STEP}-${ITEMS}`, () => runPipeline(ITEMS, pipelineId, input)));
      }
      if (options.only !== 'pipeline') {
        log(`fan-out: ${ITEMS} ${STEP} calls through the bare loop…`);
        const bareId = `bench/bare-loop-${stamp}`;
        bare = await measure(client, emulator, bareId, ITEMS, () => profiled(`bare-${STEP}-${ITEMS}`, () => runBare(ITEMS, bareId)));
      }
      // The emulator's books (one charge record per paid call) grow with the calls, in its own process.
      const books = await emulator.report();
      log(
        `emulator process: ${books.chargeRecords} charge records (${(books.chargeLogBytes / 1_048_576).toFixed(1)} MB as JSON), RSS ${books.rssMb.toFixed(0)} MB (highest ${books.maxRssMb.toFixed(0)})`,
      );
      for (const [side, figures] of [
        ['pipeline', pipeline],
        ['bare loop', bare],
      ] as const) {
        if (figures?.afterGc)
          log(
            `${side}: worker process after a full GC at its end, RSS ${figures.afterGc.rssMb.toFixed(0)} MB, main heap ${figures.afterGc.heapUsedMb.toFixed(0)} MB used of ${figures.afterGc.heapTotalMb.toFixed(0)}, external ${figures.afterGc.externalMb.toFixed(0)} MB (peak RSS ${figures.peakRssMb.toFixed(0)}, at start ${figures.startRssMb.toFixed(0)})`,
          );
      }
      const loadAfter = (await import('node:os')).loadavg()[0]!;
      const summary: FanoutSummary | undefined =
        pipeline && bare
          ? {
              items: ITEMS,
              window: WINDOW,
              step: STEP,
              pipelineItemsPerSec: round(pipeline.itemsPerSecond, 1),
              bareItemsPerSec: round(bare.itemsPerSecond, 1),
              ratio: round(pipeline.itemsPerSecond / bare.itemsPerSecond),
              cpuMsPerItem: round(pipeline.cpuMsPerItem),
              bareCpuMsPerItem: round(bare.cpuMsPerItem),
              systemCpuMsPerItem: round(pipeline.systemCpuMsPerItem),
              bareSystemCpuMsPerItem: round(bare.systemCpuMsPerItem),
              peakRssMb: round(pipeline.peakRssMb, 0),
              bareRssMb: round(bare.peakRssMb, 0),
              ...(pipeline.afterGc ? { rssAfterGcMb: round(pipeline.afterGc.rssMb, 0) } : {}),
              emulatorPeakRssMb: round(books.maxRssMb, 0),
              emulatorCpuMsPerItem: round(pipeline.emulator.cpuMsPerItem),
              maxEventsPerRun: pipeline.maxEventsPerRun,
              runs: pipeline.runs,
              largestPayloadBytes: pipeline.largestPayloadBytes,
              pipelineSeconds: round(pipeline.seconds, 1),
              bareSeconds: round(bare.seconds, 1),
              loadAverage: [round(loadBefore), round(loadAfter)],
            }
          : undefined;
      return {
        ...(pipeline ? { pipeline } : {}),
        ...(bare ? { bare } : {}),
        rows: pipeline && bare ? fanoutRows(ITEMS, WINDOW, STEP, pipeline, bare) : [],
        ...(summary ? { summary } : {}),
      };
    });
  } finally {
    await connection.close();
    await api.close();
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function fanoutRows(items: number, window: number, step: BenchStep, pipeline: Figures, bare: Figures): BenchRow[] {
  const bench = `fan-out ${items.toLocaleString('en')} ${step} items, window ${window}`;
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const ratio = pipeline.itemsPerSecond / bare.itemsPerSecond;
  return [
    {
      bench,
      figure: 'items per second (share of the bare loop)',
      measured: `${pipeline.itemsPerSecond.toFixed(0)} (${ratio.toFixed(2)})`,
      baseline: `${bare.itemsPerSecond.toFixed(0)} (bare loop)`,
      goal: '>= 0.7 of bare',
      met: ratio >= 0.7,
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
      figure: 'CPU per item (worker process; in the kernel)',
      measured: `${pipeline.cpuMsPerItem.toFixed(2)} ms (${pipeline.systemCpuMsPerItem.toFixed(2)})`,
      baseline: `${bare.cpuMsPerItem.toFixed(2)} ms (${bare.systemCpuMsPerItem.toFixed(2)})`,
      goal: '<= 3 ms',
      met: pipeline.cpuMsPerItem <= 3,
    },
    {
      bench,
      figure: 'peak RSS (worker process; at start)',
      measured: `${pipeline.peakRssMb.toFixed(0)} MB (${pipeline.startRssMb.toFixed(0)})`,
      baseline: `${bare.peakRssMb.toFixed(0)} MB (${bare.startRssMb.toFixed(0)})`,
      goal: '<= 300 MB',
      met: pipeline.peakRssMb <= 300,
    },
  ];
}

/** BENCH_WORKER_OPTIONS: a JSON object of worker options laid over the production ones (to try cache, thread and heap settings). */
function workerOverrides(): Partial<WorkerOptions> {
  const text = process.env.BENCH_WORKER_OPTIONS;
  if (!text) return {};
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`BENCH_WORKER_OPTIONS must be a JSON object, got ${text}`);
  log(`worker options laid over the production ones: ${text}`);
  return value;
}

/** The `--warmup=N` flag: items run through each side before the measured runs (default 0). */
export function warmupFlag(): number {
  const text = flagValue('warmup');
  if (text === undefined) return 0;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--warmup must be a whole number of items (0 or more), got "${text}"`);
  return value;
}

/** The `--step=` flag: search (default) or answer. */
export function stepFlag(): BenchStep {
  const step = flagValue('step') ?? 'search';
  if (step !== 'search' && step !== 'answer') throw new Error(`--step must be search or answer, got "${step}"`);
  return step;
}

runIfEntry(module, async () => {
  const items = positiveArg(0, 'items', Number(process.env.BENCH_ITEMS ?? 10_000), true);
  const window = positiveArg(1, 'window', 50, true);
  const only = process.env.BENCH_ONLY === 'pipeline' || process.env.BENCH_ONLY === 'bare' ? process.env.BENCH_ONLY : undefined;
  await withBenchServer({ preciseTimers: false }, async (server) => {
    const { pipeline, bare, rows, summary } = await runFanoutBench(server, {
      items,
      window,
      step: stepFlag(),
      warmup: warmupFlag(),
      ...(only ? { only } : {}),
    });
    if (rows.length > 0) printTable(rows);
    if (pipeline && bare)
      process.stdout.write(
        `pipeline items/s vs bare loop: ${(pipeline.itemsPerSecond / bare.itemsPerSecond).toFixed(2)}; wall time ${pipeline.seconds.toFixed(1)} s vs ${bare.seconds.toFixed(1)} s\n`,
      );
    else process.stdout.write(`${JSON.stringify(pipeline ?? bare)}\n`);
    if (hasFlag('json') && summary) process.stdout.write(`${JSON.stringify(summary)}\n`);
    // --rows (for `npm run bench`, which runs this file as its own worker process): the table's rows and the summary, as JSON, last.
    if (hasFlag('rows')) process.stdout.write(`${JSON.stringify({ rows, summary })}\n`);
  });
});

/**
 * Runs the fan-out in a process of its own against `server` (as `rp worker` runs apart from what starts
 * the work), started as `npm run bench:fanout` starts it: its CPU and RSS are a worker's alone, not
 * those of whatever ran before it in the caller's process. Progress goes to the caller's stderr.
 */
export async function runFanoutProcess(
  server: TemporalServer,
  options: { items: number; window?: number; step: BenchStep; warmup?: number },
): Promise<{ rows: BenchRow[]; summary?: FanoutSummary }> {
  const args = [
    '--max-semi-space-size=4',
    require.resolve('./run.js'),
    __filename,
    String(options.items),
    String(options.window ?? 50),
    `--step=${options.step}`,
    `--warmup=${options.warmup ?? 0}`,
    '--rows',
  ];
  const child = spawn(process.execPath, args, {
    env: { MALLOC_ARENA_MAX: '2', ...process.env, TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  const last = stdout.trimEnd().split('\n').at(-1) ?? '';
  if (code !== 0) throw new Error(`the fan-out process ended with ${signal ?? `exit code ${code}`}; its output ended: ${last.slice(0, 500)}`);
  return JSON.parse(last) as { rows: BenchRow[]; summary?: FanoutSummary };
}
