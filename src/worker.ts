import { Worker, type WorkerOptions } from '@temporalio/worker';
import type { Logger } from 'pino';
import { ResearchClient } from './api';
import { createActivities, openArtifactStore, openWebhookSecretStore, type ActivityDeps } from './activities';
import { WEBHOOK_SECRET_DIR_DEPRECATION } from './shared/webhook-secrets';
import { dataConverterFromConfig } from './codec/data-converter';
import { checkWorkerResearchService, type Config } from './config';
import { configSecrets, createLogger } from './logging';
import { installWorkerRuntime } from './observability/runtime';
import { serviceErrorMetrics } from './observability/service-error-metrics';
import { workerTracing } from './observability/tracing';
import { ensureSearchAttributes } from './register-search-attributes';
import { connectionSecurityOptions } from './temporal/connection-options';
import { connectWorkerTemporal, type TemporalServer } from './temporal/connect';
import { compactWorkerHeap } from './worker-heap';

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
  /** Where progress lines go (never with secrets); the JSON logger (LOG_LEVEL, LOG_FORMAT) by default. */
  log?: (line: string) => void;
  /** The pino logger the SDK runtime forwards to; `createLogger(config)` (stdout) by default. */
  logger?: Logger;
}

/**
 * Workflow interceptor modules bundled with the workflows: activity summaries for the UI, and the
 * project's task metrics on the SDK's meter.
 */
export const WORKFLOW_INTERCEPTOR_MODULES: string[] = [require.resolve('./workflows/interceptors'), require.resolve('./workflows/metrics-interceptors')];

/**
 * What `createWorkerOptions` reads of the configuration: a whole `Config` (`rp worker`), or the few
 * settings `rp dev` has (its own task queue and namespace, its keys; the intake comes with `deps`).
 */
export type WorkerSettings = Pick<Config, 'codec' | 'intakePublicUrl' | 'intakeKey' | 'notifySecret' | 'maxCachedWorkflows'> & {
  temporal: Pick<Config['temporal'], 'namespace' | 'taskQueue'>;
};

/**
 * The worker's options apart from its connection: task queue, namespace, workflows, bound activities,
 * payload codec, metrics interceptors and the shutdown grace. `rp worker` and `rp dev` both build theirs here.
 */
export function createWorkerOptions(
  config: WorkerSettings,
  deps: ActivityDeps,
  workflowsPath: string = require.resolve('./workflows'),
): Omit<WorkerOptions, 'connection'> {
  return {
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowsPath,
    // With PAYLOAD_CODEC_KEYS set, every payload this worker writes to history is encrypted.
    dataConverter: dataConverterFromConfig(config),
    // Project metrics on the SDK's meter, exported with the SDK's own on METRICS_BIND_ADDRESS.
    interceptors: { workflowModules: WORKFLOW_INTERCEPTOR_MODULES, activity: [serviceErrorMetrics] },
    activities: createActivities({
      webhookBaseUrl: config.intakePublicUrl,
      intakeKey: config.intakeKey,
      ...(config.notifySecret ? { notifySecret: config.notifySecret } : {}),
      ...deps,
    }),
    // On SIGTERM (a deploy) the worker stops polling and gives running activities this long to finish,
    // so an in-flight create or download ends with a known outcome instead of being cut off.
    shutdownGraceTime: WORKER_SHUTDOWN_GRACE,
    // WORKER_MAX_CACHED_WORKFLOWS; unset, the SDK's default (sized from the V8 heap limit) applies.
    ...(config.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: config.maxCachedWorkflows } : {}),
  };
}

/** Opens the configured research service: the real one, or the embedded emulator started by `startEmulator`. */
export async function openResearchService(config: Config, startEmulator: EmbeddedEmulatorStarter = startEmbeddedEmulator): Promise<ResearchConnection> {
  const timeout = {
    ...(config.research.timeoutMs !== undefined ? { timeoutMs: config.research.timeoutMs } : {}),
    ...(config.research.allowPrivateDownloads ? { allowPrivateDownloads: true } : {}),
    ...(config.research.rate
      ? { requestsPerSecond: config.research.rate.requestsPerSecond, ...(config.research.rate.burst ? { burst: config.research.rate.burst } : {}) }
      : {}),
  };
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
  checkWorkerResearchService(config);
  // Before anything else opens: a store the worker cannot write to fails the start, naming ARTIFACT_URL.
  const store = await openArtifactStore(config.artifactStore ?? { kind: 'local', dir: config.artifactDir });
  const logger = options.logger ?? createLogger(config, { secrets: configSecrets(config) });
  const log = options.log ?? ((line: string) => logger.info(line));
  // Before any connection: the runtime is made once per process, with the first connection at the latest.
  if (!installWorkerRuntime(config, logger) && config.metricsBindAddress) {
    log(
      `a Temporal runtime already exists in this process: METRICS_BIND_ADDRESS=${config.metricsBindAddress} and the log settings apply only to the first one`,
    );
  }
  // With OTEL_EXPORTER_OTLP_ENDPOINT set, spans of workflows and activities go there (OTLP/HTTP).
  const tracing = workerTracing(process.env);
  if (tracing) log(`tracing to ${tracing.url}`);
  const research = await openResearchService(config, options.startEmulator);
  let temporal: TemporalServer | undefined;
  const cleanups: Array<() => void> = [];
  try {
    temporal = await connectWorkerTemporal(
      config.temporal.address,
      config.temporal.namespace,
      config.temporal.addressSource ?? config.temporal.addressSet,
      connectionSecurityOptions(config.temporal.security),
    );
    await ensureSearchAttributes(temporal.connection, config.temporal.namespace, log);
    if (config.webhookSecretDir) logger.warn(WEBHOOK_SECRET_DIR_DEPRECATION);
    const secrets = openWebhookSecretStore({
      store,
      ...(config.intakeKey ? { intakeKey: config.intakeKey } : {}),
      ...(config.webhookSecretDir ? { legacyDir: config.webhookSecretDir } : {}),
    });
    // Before Worker.create starts the workflow threads, whose young generation it sizes.
    const heap = compactWorkerHeap(config.workerHeap);
    if (heap.applied.length > 0) log(`V8 heap: ${heap.applied.join(' ')}${heap.kept.length > 0 ? ` (kept the process's own ${heap.kept.join(', ')})` : ''}`);
    const worker = await Worker.create({
      connection: temporal.nativeConnection,
      ...createWorkerOptions(config, { api: research.api, store, secrets }),
      ...(tracing ? { plugins: [tracing.plugin] } : {}),
    });
    // Temporal's runtime also reacts to these signals; shutting down twice is refused, so check the state.
    const stop = () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    };
    const where = config.research.kind === 'service' ? config.research.baseUrl : 'the embedded emulator';
    log(
      `worker polling task queue ${config.temporal.taskQueue} on ${config.temporal.address} (${temporal.source}, namespace ${config.temporal.namespace}); research service: ${where}; artifacts: ${config.artifactStore?.url ?? config.artifactDir}`,
    );
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
    await tracing?.shutdown();
  }
}
