import { randomBytes } from 'node:crypto';
// Poll efficiency: status requests per task and completion-detection latency of researchTaskWorkflow for
// fast, standard and heavy tasks, with and without completion webhooks, beside a fixed 5-second polling
// loop (what the official clients' wait helpers do), all in one process against one emulator running
// `speed` times faster than real time. Latencies are measured on the emulator's clock (and shown in real
// time too); requests are counted per task at the client and checked against the emulator's own count.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { ResearchClient } from '../src/api';
import type { ResearchMode, Task } from '../src/api/schemas';
import { createActivities, InMemoryWebhookSecretStore, LocalArtifactStore } from '../src/activities';
import { startEmulator, type RunningEmulator } from '../src/emulator/server';
import { type TemporalServer } from '../src/temporal/server';
import { POLL_PROFILES, RECONCILE_DELAYS_MS } from '../src/workflows/polling';
import { buildIntake } from '../src/intake/server';
import { log, positiveArg, printTable, runIfEntry, withBenchServer, type BenchRow } from './table';
import type { ResearchTaskResult } from '../src/domain/research-types';

/** The official clients wait this long between status reads. */
const FIXED_INTERVAL_MS = 5_000;
const MODES: readonly ResearchMode[] = ['fast', 'standard', 'heavy'];
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

type Variant = 'webhook' | 'polling' | 'fixed 5 s loop';

interface TaskFigures {
  mode: ResearchMode;
  variant: Variant;
  statusReads: number;
  elapsedMs: number;
  /** Completion to detection, on the emulator clock. */
  detectionMs: number;
  /** Webhook receipt to detection, real time (webhook variant). */
  afterWebhookRealMs?: number;
}

/** Counts status reads per task and notes, on the emulator clock, when each task was first seen finished. */
function observe(
  api: ResearchClient,
  emulator: RunningEmulator,
  reads: Map<string, number>,
  seen: Map<string, { at: number; realAt: number; task: Task }>,
): void {
  const getTask = api.getTask.bind(api);
  api.getTask = async (taskId, options) => {
    reads.set(taskId, (reads.get(taskId) ?? 0) + 1);
    const task = await getTask(taskId, options);
    if (TERMINAL.has(task.status) && !seen.has(taskId)) seen.set(taskId, { at: emulator.clock.now(), realAt: Date.now(), task });
    return task;
  };
}

/** Runs the comparison on `server`; `perCell` tasks for each mode and variant, all at once. */
export async function runPollingBench(server: TemporalServer, options: { speed?: number; perCell?: number } = {}): Promise<BenchRow[]> {
  const speed = options.speed ?? 30;
  const perCell = options.perCell ?? 2;
  const dir = await mkdtemp(path.join(tmpdir(), 'rp-bench-polling-'));
  // No duration jitter: tasks take the emulator's typical 3, 15 and 45 minutes, the durations the goals name.
  const emulator = await startEmulator({
    seed: 'bench-polling',
    speed,
    defaultCreditsUsd: 10_000,
    rateLimit: { requestsPerSecond: 1_000_000, burst: 1_000_000 },
    research: { durationJitter: 0 },
  });
  const reads = new Map<string, number>();
  const seen = new Map<string, { at: number; realAt: number; task: Task }>();
  const webhookAt = new Map<string, number>();
  const api = new ResearchClient({ baseUrl: emulator.url, apiKey: emulator.defaultApiKey });
  observe(api, emulator, reads, seen);
  const secrets = new InMemoryWebhookSecretStore();
  const client = new Client({ connection: server.connection, namespace: server.namespace });
  const stamp = Date.now();
  const queues = { polling: `bench-polling-${stamp}`, webhook: `bench-webhook-${stamp}` };
  // The real intake (`rp intake`'s server) verifies each webhook and signals its workflow; the hook
  // notes when the first webhook of each task arrived, for the detection figure.
  const intakeKey = randomBytes(32).toString('hex');
  const intake = await buildIntake({
    client,
    secrets,
    intakeKey,
    tokens: [],
    pipelinesDir: path.resolve(__dirname, '../pipelines'),
    taskQueue: queues.webhook,
    namespace: server.namespace,
    now: () => emulator.clock.now(),
    logger: false,
  });
  intake.app.addHook('preHandler', async (request) => {
    const id = (request.body as { deepresearch_id?: unknown } | undefined)?.deepresearch_id;
    if (typeof id === 'string' && request.url.startsWith('/webhooks/') && !webhookAt.has(id)) webhookAt.set(id, Date.now());
  });
  const intakeUrl = await intake.app.listen({ port: 0, host: '127.0.0.1' });
  const store = new LocalArtifactStore(path.join(dir, 'store'));
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../src/workflows'),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: log, log() {} },
  });
  const workers = await Promise.all([
    Worker.create({
      connection: server.nativeConnection,
      namespace: server.namespace,
      taskQueue: queues.polling,
      workflowBundle: { code },
      activities: createActivities({ api, store, secrets }),
    }),
    Worker.create({
      connection: server.nativeConnection,
      namespace: server.namespace,
      taskQueue: queues.webhook,
      workflowBundle: { code },
      activities: createActivities({ api, store, secrets, webhookBaseUrl: intakeUrl, intakeKey }),
    }),
  ]);
  const running = workers.map((worker) => worker.run());
  const scale = (ms: number) => Math.max(1, Math.round(ms / speed));
  const sleep = (emulatorMs: number) => new Promise<void>((resolve) => void emulator.clock.setTimeout(() => resolve(), emulatorMs));
  try {
    const figures = (id: string, mode: ResearchMode, variant: Variant): TaskFigures => {
      const done = seen.get(id);
      if (!done || done.task.status !== 'completed' || !done.task.completed_at) throw new Error(`task ${id} (${mode}, ${variant}) did not complete`);
      const completedAt = Date.parse(done.task.completed_at);
      const webhook = webhookAt.get(id);
      return {
        mode,
        variant,
        statusReads: reads.get(id) ?? 0,
        elapsedMs: completedAt - Date.parse(done.task.created_at),
        detectionMs: done.at - completedAt,
        ...(variant === 'webhook' && webhook !== undefined ? { afterWebhookRealMs: done.realAt - webhook } : {}),
      };
    };
    const viaWorkflow = async (mode: ResearchMode, variant: 'webhook' | 'polling', index: number): Promise<TaskFigures> => {
      const profile = POLL_PROFILES[mode];
      const result = (await client.workflow.execute('researchTaskWorkflow', {
        taskQueue: queues[variant],
        workflowId: `bench-polling/${stamp}/${mode}/${variant}/${index}`,
        args: [
          {
            request: { query: `Market study ${mode} ${index}`, mode },
            polling: {
              initialDelayMs: scale(profile.initialDelayMs),
              maxDelayMs: scale(profile.maxDelayMs),
              reconcileDelaysMs: RECONCILE_DELAYS_MS.map(scale),
            },
          },
        ],
      })) as ResearchTaskResult;
      return figures(result.deepresearchId, mode, variant);
    };
    const fixedLoop = async (mode: ResearchMode, index: number): Promise<TaskFigures> => {
      const created = await api.createTask({ query: `Market study ${mode} ${index}`, mode });
      for (;;) {
        const task = await api.getTask(created.deepresearch_id);
        if (TERMINAL.has(task.status)) break;
        await sleep(FIXED_INTERVAL_MS);
      }
      return figures(created.deepresearch_id, mode, 'fixed 5 s loop');
    };
    const before = emulator.stats.snapshot().requests['deepresearch.status'] ?? {};
    log(`polling: ${MODES.length * 3 * perCell} tasks (fast, standard, heavy; webhook, polling, fixed loop) at ${speed}x emulator speed…`);
    const all = await Promise.all(
      MODES.flatMap((mode) =>
        Array.from({ length: perCell }, (_, index) => [
          viaWorkflow(mode, 'webhook', index),
          viaWorkflow(mode, 'polling', index),
          fixedLoop(mode, index),
        ]).flat(),
      ),
    );
    const after = emulator.stats.snapshot().requests['deepresearch.status'] ?? {};
    const served = Object.values(after).reduce((sum, count) => sum + count, 0) - Object.values(before).reduce((sum, count) => sum + count, 0);
    const counted = [...reads.values()].reduce((sum, count) => sum + count, 0);
    if (served !== counted) throw new Error(`status reads counted at the client (${counted}) differ from those the emulator served (${served})`);
    return rowsOf(all, speed);
  } finally {
    for (const worker of workers) worker.shutdown();
    await Promise.all(running);
    await intake.app.close();
    await api.close();
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
const minutes = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function rowsOf(all: readonly TaskFigures[], speed: number): BenchRow[] {
  const rows: BenchRow[] = [];
  const pick = (mode: ResearchMode, variant: Variant) => all.filter((task) => task.mode === mode && task.variant === variant);
  for (const mode of MODES) {
    const fixed = pick(mode, 'fixed 5 s loop');
    const elapsed = mean(all.filter((task) => task.mode === mode).map((task) => task.elapsedMs));
    const fixedReads = mean(fixed.map((task) => task.statusReads)).toFixed(1);
    const fixedDetection = mean(fixed.map((task) => task.detectionMs));
    const bench = `polling ${mode} (~${minutes(elapsed)})`;
    for (const variant of ['webhook', 'polling'] as const) {
      const tasks = pick(mode, variant);
      const readsPerTask = mean(tasks.map((task) => task.statusReads));
      const worstReads = Math.max(...tasks.map((task) => task.statusReads));
      const readGoal = mode === 'standard' ? (variant === 'webhook' ? 2 : 8) : undefined;
      rows.push({
        bench,
        figure: `status requests/task, ${variant === 'webhook' ? 'with webhooks' : 'polling only'}`,
        measured: `${readsPerTask.toFixed(1)} (max ${worstReads})`,
        baseline: fixedReads,
        goal: readGoal !== undefined ? `<= ${readGoal}` : '',
        ...(readGoal !== undefined ? { met: worstReads <= readGoal } : {}),
      });
      const detection = Math.max(...tasks.map((task) => task.detectionMs));
      const share = Math.max(...tasks.map((task) => task.detectionMs / task.elapsedMs));
      if (variant === 'webhook') {
        const afterWebhook = Math.max(...tasks.map((task) => task.afterWebhookRealMs ?? Number.POSITIVE_INFINITY));
        rows.push({
          bench,
          figure: 'detection after the webhook (worst; real time, emulator time)',
          measured: `${afterWebhook.toFixed(0)} ms real, ${seconds(afterWebhook * speed)} emu`,
          baseline: `${seconds(fixedDetection)} emu after completion`,
          goal: '<= 1 s',
          met: afterWebhook <= 1_000,
        });
      } else {
        rows.push({
          bench,
          figure: 'detection after completion, polling only (worst; emulator time)',
          measured: `${seconds(detection)} emu (${(share * 100).toFixed(1)}% of elapsed), ${(detection / speed).toFixed(0)} ms real`,
          baseline: `${seconds(fixedDetection)} emu (${((fixedDetection / elapsed) * 100).toFixed(1)}%)`,
          goal: `<= ${mode === 'fast' ? 5 : 10}% of elapsed`,
          met: share <= (mode === 'fast' ? 0.05 : 0.1),
        });
      }
    }
  }
  return rows;
}

runIfEntry(module, async () => {
  const speed = positiveArg(0, 'emulator speed', 30);
  const perCell = positiveArg(1, 'tasks per mode and variant', 2, true);
  await withBenchServer({ preciseTimers: true }, async (server) => {
    printTable(await runPollingBench(server, { speed, perCell }));
  });
});
