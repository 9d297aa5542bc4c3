import { Worker, type WorkerOptions } from '@temporalio/worker';
import { ResearchClient } from './api';
import { createActivities, FileWebhookSecretStore, LocalArtifactStore, type ActivityDeps } from './activities';
import type { Config } from './config';
import { ensureSearchAttributes } from './register-search-attributes';
import { connectWorkerTemporal, type TemporalServer } from './temporal/server';

/** A research service the worker talks to, and how to let go of it. */
export interface ResearchConnection {
  api: ResearchClient;
  close(): Promise<void>;
}

/** Starts the embedded emulator and says where it listens and with which key. */
export type EmbeddedEmulatorStarter = () => Promise<{ baseUrl: string; apiKey: string; close(): Promise<void> }>;

/** The emulator with its defaults (real-time clock, generated key); loaded only when selected. */
export const startEmbeddedEmulator: EmbeddedEmulatorStarter = async () => {
  const { startEmulator } = await import('./emulator/server');
  const emulator = await startEmulator();
  return { baseUrl: emulator.url, apiKey: emulator.defaultApiKey, close: () => emulator.close() };
};

/** How long running activities may finish after SIGTERM: above the service call timeout's default (60 s). */
export const WORKER_SHUTDOWN_GRACE = '90 seconds';

/** Options of `runWorker`. */
export interface RunWorkerOptions {
  /** Stops the worker gracefully when aborted (as SIGINT and SIGTERM do). */
  signal?: AbortSignal;
  /** Starts the emulator when the configuration selects it (`startEmbeddedEmulator` by default; `dev` may pass a faster one). */
  startEmulator?: EmbeddedEmulatorStarter;
  /** Where progress lines go (never with secrets); stderr by default. */
  log?: (line: string) => void;
}

/** The worker's options apart from its connection: task queue, namespace, workflows and bound activities. */
export function createWorkerOptions(
  config: Config,
  deps: ActivityDeps,
  workflowsPath: string = require.resolve('./workflows'),
): Omit<WorkerOptions, 'connection'> {
  return {
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowsPath,
    activities: createActivities({ webhookBaseUrl: config.intakePublicUrl, intakeKey: config.intakeKey, ...deps }),
    // On SIGTERM (a deploy) the worker stops polling and gives running activities this long to finish,
    // so an in-flight create or download ends with a known outcome instead of being cut off.
    shutdownGraceTime: WORKER_SHUTDOWN_GRACE,
  };
}

/** Opens the configured research service: the real one, or the embedded emulator started by `startEmulator`. */
export async function openResearchService(config: Config, startEmulator: EmbeddedEmulatorStarter = startEmbeddedEmulator): Promise<ResearchConnection> {
  const timeout = config.research.timeoutMs !== undefined ? { timeoutMs: config.research.timeoutMs } : {};
  if (config.research.kind === 'service') {
    const api = new ResearchClient({ baseUrl: config.research.baseUrl, apiKey: config.research.apiKey, ...timeout });
    return { api, close: () => api.close() };
  }
  const emulator = await startEmulator();
  const api = new ResearchClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKey, ...timeout });
  return {
    api,
    close: async () => {
      await api.close();
      await emulator.close();
    },
  };
}

/** Runs the worker until SIGINT, SIGTERM or `signal`, then drains it and closes every connection. */
export async function runWorker(config: Config, options: RunWorkerOptions = {}): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const research = await openResearchService(config, options.startEmulator);
  let temporal: TemporalServer | undefined;
  const cleanups: Array<() => void> = [];
  try {
    temporal = await connectWorkerTemporal(config.temporal.address, config.temporal.namespace, config.temporal.addressSet);
    await ensureSearchAttributes(temporal.connection, config.temporal.namespace, log);
    const worker = await Worker.create({
      connection: temporal.nativeConnection,
      ...createWorkerOptions(config, {
        api: research.api,
        store: new LocalArtifactStore(config.artifactDir),
        secrets: new FileWebhookSecretStore(config.webhookSecretDir),
      }),
    });
    // Temporal's runtime also reacts to these signals; shutting down twice is refused, so check the state.
    const stop = () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    };
    const where = config.research.kind === 'service' ? config.research.baseUrl : 'the embedded emulator';
    log(`worker polling task queue ${config.temporal.taskQueue} on ${config.temporal.address} (namespace ${config.temporal.namespace}); research service: ${where}`);
    // `run()` enters RUNNING synchronously, so `stop` works from here on, even for a signal aborted already.
    const running = worker.run();
    for (const name of ['SIGINT', 'SIGTERM'] as const) {
      process.once(name, stop);
      cleanups.push(() => process.off(name, stop));
    }
    options.signal?.addEventListener('abort', stop, { once: true });
    cleanups.push(() => options.signal?.removeEventListener('abort', stop));
    if (options.signal?.aborted) stop();
    await running;
    log('worker stopped');
  } finally {
    for (const cleanup of cleanups) cleanup();
    await temporal?.close();
    await research.close();
  }
}
