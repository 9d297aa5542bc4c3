import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { ResearchClient } from './api';
import { createActivities, InMemoryWebhookSecretStore, LocalArtifactStore } from './activities';
import { startEmulator } from './emulator/server';
import { researchTaskWorkflowId } from './workflows/ids';
import { ensureSearchAttributes } from './register-search-attributes';
import { RESEARCH_SEARCH_ATTRIBUTES } from './workflows/search-attributes';
import type { ResearchTaskInput, ResearchTaskResult } from './workflows/types';

/** Options of `rp dev`. */
export interface DevOptions {
  /** Temporal frontend; when unset a local dev server is started through the Temporal SDK. */
  temporalAddress?: string;
  namespace?: string;
  /** A local `temporal` binary to start the dev server from, instead of the SDK's download. */
  temporalCliPath?: string;
  artifactDir: string;
  /** Emulator clock speed: at 60 a 3-minute fast task takes 3 s. */
  speed: number;
  log(line: string): void;
}

interface TemporalTarget {
  workerConnection: NativeConnection;
  clientConnection: Connection;
  namespace: string;
  close(): Promise<void>;
}

/** Connects to `address`, or starts a local Temporal dev server (downloaded once by the SDK). */
async function openTemporal(options: DevOptions): Promise<TemporalTarget> {
  const namespace = options.namespace ?? 'default';
  if (options.temporalAddress) {
    const workerConnection = await NativeConnection.connect({ address: options.temporalAddress });
    const clientConnection = await Connection.connect({ address: options.temporalAddress });
    await ensureSearchAttributes(workerConnection, namespace, options.log);
    return { workerConnection, clientConnection, namespace, close: async () => { await clientConnection.close(); await workerConnection.close(); } };
  }
  let testing: typeof import('@temporalio/testing');
  try {
    testing = await import('@temporalio/testing');
  } catch {
    throw new Error('no TEMPORAL_ADDRESS is set and @temporalio/testing (which starts a local dev server) is not installed: set TEMPORAL_ADDRESS or run `npm ci`');
  }
  const { defineSearchAttributeKey } = await import('@temporalio/common');
  const cliPath = options.temporalCliPath;
  options.log(cliPath ? `starting a local Temporal dev server from ${cliPath}…` : 'starting a local Temporal dev server (the SDK downloads it on first use)…');
  let env: Awaited<ReturnType<typeof testing.TestWorkflowEnvironment.createLocal>>;
  try {
    env = await testing.TestWorkflowEnvironment.createLocal({
      server: {
        searchAttributes: Object.entries(RESEARCH_SEARCH_ATTRIBUTES).map(([name, type]) => defineSearchAttributeKey(name, type)),
        ...(cliPath ? { executable: { type: 'existing-path' as const, path: cliPath } } : {}),
      },
    });
  } catch (error) {
    throw new Error(`could not start a local Temporal dev server (${error instanceof Error ? error.message : String(error)}); set TEMPORAL_ADDRESS to a running Temporal service, or TEMPORAL_CLI_PATH to a local temporal binary`, { cause: error });
  }
  return { workerConnection: env.nativeConnection, clientConnection: env.connection, namespace: env.namespace ?? namespace, close: () => env.teardown() };
}

/**
 * The main job on embedded defaults: the emulator on a free loopback port, a Temporal worker, and one
 * sample research task (with a CSV deliverable) run to completion.
 */
export async function runDev(options: DevOptions): Promise<ResearchTaskResult> {
  const emulator = await startEmulator({ speed: options.speed, seed: 'dev' });
  options.log(`emulator on ${emulator.url} (clock x${options.speed})`);
  const api = new ResearchClient({ baseUrl: emulator.url, apiKey: emulator.defaultApiKey });
  let temporal: TemporalTarget | undefined;
  try {
    temporal = await openTemporal(options);
    const taskQueue = `research-dev-${Date.now()}`;
    const worker = await Worker.create({
      connection: temporal.workerConnection,
      namespace: temporal.namespace,
      taskQueue,
      workflowsPath: require.resolve('./workflows'),
      activities: createActivities({ api, store: new LocalArtifactStore(options.artifactDir), secrets: new InMemoryWebhookSecretStore() }),
    });
    const client = new Client({ connection: temporal.clientConnection, namespace: temporal.namespace });
    const context = { pipeline: 'dev', run: new Date().toISOString().slice(0, 19), item: 'sample' };
    const input: ResearchTaskInput = {
      request: { query: 'What are the main approaches to grid-scale energy storage, and how do their costs compare?', mode: 'fast', deliverables: ['A CSV comparing technologies by cost per kWh'] },
      context,
      polling: { initialDelayMs: 500, maxDelayMs: 2_000 },
    };
    const result = await worker.runUntil(async () => {
      const handle = await client.workflow.start('researchTaskWorkflow', { taskQueue, workflowId: researchTaskWorkflowId(context), args: [input] });
      options.log(`started workflow ${handle.workflowId}`);
      return (await handle.result()) as ResearchTaskResult;
    });
    return result;
  } finally {
    await temporal?.close();
    await api.close();
    await emulator.close();
  }
}
