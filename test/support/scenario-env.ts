import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { QueryDefinition, SignalDefinition, UpdateDefinition } from '@temporalio/common';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../../src/worker';
import { acquireServer, releaseServer, type ServerConnection } from './server/connection';
import { ServerWorkflowHandle } from './server/handle';
import { WaitTimeoutError } from './server/scenario-errors';
import { testServer } from './server/test-server';
import { DEFAULT_WAIT_TIMEOUT_MS, resolveActivities, type ScenarioSetup } from './scenario-setup';

/**
 * What a workflow scenario runs against: a worker on a fresh task queue of the run's real Temporal
 * server, and a client. Scenario time runs `speed` times faster than real time: the emulator is
 * started at that speed and the workflows get poll delays scaled the same way, so an hour of research
 * takes seconds while every timer, retry and message goes through the real server.
 */
export interface ScenarioEnv {
  /** How many times faster than real time scenario time runs. */
  readonly speed: number;
  /** The worker's task queue (a client starting workflows for this scenario uses it). */
  readonly taskQueue: string;
  /** A client of the run's server, for code under test that takes one (startPipeline, schedules). */
  readonly client: Client;
  /** Starts a workflow by type name. */
  start<R = unknown>(workflowType: string, options: ScenarioStartOptions): Promise<ScenarioHandle<R>>;
  /** A handle on the latest execution with this id (a child workflow, say). */
  getHandle<R = unknown>(workflowId: string): ScenarioHandle<R>;
  /** Lets `ms` of scenario time pass. */
  sleep(ms: number): Promise<void>;
  /** Re-checks `predicate` until it holds; rejects with WaitTimeoutError naming `description` after `timeoutMs` of scenario time. */
  waitUntil(predicate: () => boolean | Promise<boolean>, options?: WaitUntilOptions): Promise<void>;
  /**
   * Stops the worker (activities in flight are cancelled as at a worker's shutdown) and starts a new one
   * on the same task queue, as a redeployed or restarted worker process would.
   */
  restartWorker(): Promise<void>;
  /** Stops the worker. */
  close(): Promise<void>;
}

/** Options of {@link ScenarioEnv.start}. */
export interface ScenarioStartOptions {
  readonly workflowId: string;
  readonly args?: readonly unknown[];
}

/** Options of {@link ScenarioEnv.waitUntil}. */
export interface WaitUntilOptions {
  /** Scenario time to wait at most; default 60 s. */
  readonly timeoutMs?: number;
  /** What is waited for, quoted in the timeout error. */
  readonly description?: string;
}

/** A started workflow execution (the whole continue-as-new chain), as a client sees it. */
export interface ScenarioHandle<R> {
  readonly workflowId: string;
  /** Sends a signal; WorkflowNotRunningError if the execution has closed. */
  signal<Args extends unknown[]>(signal: SignalDefinition<Args> | string, ...args: Args): Promise<void>;
  /** Runs a query against the current run (closed runs answer too); WorkflowQueryFailedError if it throws. */
  query<T, Args extends unknown[] = []>(query: QueryDefinition<T, Args> | string, ...args: Args): Promise<T>;
  /** Runs an update with its validator; rejects with WorkflowUpdateFailedError carrying the failure's message. */
  executeUpdate<T, Args extends unknown[] = []>(update: UpdateDefinition<T, Args> | string, ...args: Args): Promise<T>;
  /** Requests cancellation of the workflow. */
  cancel(): Promise<void>;
  /** Waits for the execution to close; rejects with WorkflowFailedError. */
  result(): Promise<R>;
  /** Latest custom search attribute values by name. */
  searchAttributes(): Promise<Record<string, unknown>>;
  /** Largest payload in the history of any run of the chain, in bytes. */
  largestPayloadBytes(): Promise<number>;
  /** True when any payload in the history (every run of the chain) contains `text`: secrets must not. */
  payloadsContain(text: string): Promise<boolean>;
  /** Number of events in the current run's history. */
  historyLength(): Promise<number>;
  /** Number of runs in the continue-as-new chain so far. */
  runCount(): Promise<number>;
  /** The current run's history in the JSON form `temporal workflow show --output json` prints. */
  /** The latest run's history, or the first run's (one that continued as new: the path a replay must cover). */
  historyJson(run?: 'latest' | 'first'): Promise<unknown>;
}

export type { ScenarioSetup } from './scenario-setup';
export { WaitTimeoutError, WorkflowFailedError, WorkflowNotRunningError, WorkflowQueryFailedError, WorkflowUpdateFailedError } from './server/scenario-errors';

/** Scenario time runs this many times faster than real time (the emulator's speed; poll delays shrink by it). */
export const SCENARIO_SPEED = 120;
/** Real time a scenario may take, a whole task with its checkpoints included. */
const SCENARIO_TEST_TIMEOUT_MS = 180_000;
/** Shortest real time `waitUntil` allows, so a short scenario timeout still covers server round trips. */
const MIN_REAL_WAIT_MS = 10_000;
/** How often `waitUntil` re-checks its predicate, in real time. */
const POLL_INTERVAL_MS = 50;
/** Set to a folder to write the histories scenarios record (see test/fixtures/histories/README.md). */
const RECORD_VARIABLE = 'RP_RECORD_HISTORIES';

const bundles = new Map<string, Promise<string>>();

/**
 * Defines the scenarios in `body` on the run's real Temporal server (found by the Jest global setup).
 * Each test gets a fresh worker and task queue from `getEnv()`. Without a server the block is skipped
 * with the reason in its title (the global setup has failed the run instead when CI is set).
 */
export function describeScenarios(title: string, setup: ScenarioSetup, body: (getEnv: () => ScenarioEnv) => void): void {
  const server = testServer();
  if (!server.available) {
    describe.skip(`${title} [skipped: ${server.reason.split('\n')[0]}]`, () => body(() => present<ScenarioEnv>(undefined)));
    return;
  }
  describe(title, () => {
    jest.setTimeout(SCENARIO_TEST_TIMEOUT_MS);
    let connection: ServerConnection | undefined;
    let env: ServerScenarioEnv | undefined;
    beforeAll(async () => {
      connection = await acquireServer(server.address, server.namespace, setup.searchAttributes);
    });
    afterAll(() => releaseServer());
    beforeEach(async () => {
      env = await ServerScenarioEnv.create(present(connection), setup);
    });
    afterEach(async () => {
      await env?.close();
      env = undefined;
    });
    body(() => present(env));
  });
}

/**
 * Writes a closed workflow's history to `<RP_RECORD_HISTORIES>/<name>.json` when that variable is
 * set, for the replay suite; does nothing otherwise.
 */
export async function recordHistory(handle: ScenarioHandle<unknown>, name: string, run: 'latest' | 'first' = 'latest'): Promise<void> {
  const dir = process.env[RECORD_VARIABLE];
  if (!dir) return;
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, `${name}.json`), `${JSON.stringify(await handle.historyJson(run))}\n`);
}

class ServerScenarioEnv implements ScenarioEnv {
  readonly speed = SCENARIO_SPEED;

  private constructor(
    private readonly connection: ServerConnection,
    private readonly setup: ScenarioSetup,
    readonly taskQueue: string,
    private worker: Worker,
    private running: Promise<void>,
  ) {}

  static async create(connection: ServerConnection, setup: ScenarioSetup): Promise<ServerScenarioEnv> {
    const taskQueue = `scenario-${randomUUID()}`;
    const worker = await ServerScenarioEnv.createWorker(connection, setup, taskQueue);
    return new ServerScenarioEnv(connection, setup, taskQueue, worker, worker.run());
  }

  private static async createWorker(connection: ServerConnection, setup: ScenarioSetup, taskQueue: string): Promise<Worker> {
    return Worker.create({
      connection: connection.env.nativeConnection,
      namespace: connection.namespace,
      taskQueue,
      workflowBundle: { code: await bundle(setup.workflowsPath) },
      activities: resolveActivities(setup),
    });
  }

  async restartWorker(): Promise<void> {
    await this.close();
    this.worker = await ServerScenarioEnv.createWorker(this.connection, this.setup, this.taskQueue);
    this.running = this.worker.run();
  }

  get client(): Client {
    return this.connection.env.client;
  }

  async start<R = unknown>(workflowType: string, options: ScenarioStartOptions): Promise<ServerWorkflowHandle<R>> {
    const { client } = this.connection.env;
    const handle = await client.workflow.start(workflowType, { workflowId: options.workflowId, taskQueue: this.taskQueue, args: [...(options.args ?? [])] });
    return new ServerWorkflowHandle<R>(client, handle);
  }

  getHandle<R = unknown>(workflowId: string): ServerWorkflowHandle<R> {
    const { client } = this.connection.env;
    return new ServerWorkflowHandle<R>(client, client.workflow.getHandle(workflowId));
  }

  async sleep(ms: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms / this.speed));
  }

  async waitUntil(predicate: () => boolean | Promise<boolean>, options: WaitUntilOptions = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
    const deadline = Date.now() + Math.max(MIN_REAL_WAIT_MS, timeoutMs / this.speed);
    while (!(await predicate())) {
      if (Date.now() >= deadline) {
        throw new WaitTimeoutError(`waitUntil timed out after ${timeoutMs} ms of scenario time waiting for ${options.description ?? 'the condition'}`);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    }
  }

  async close(): Promise<void> {
    // A worker that already stopped (it failed) refuses shutdown(); its run promise reports why.
    if (this.worker.getState() === 'RUNNING') this.worker.shutdown();
    await this.running;
  }
}

// Bundling runs webpack (about a second), so each workflows module is bundled once per test file.
function bundle(workflowsPath: string): Promise<string> {
  let code = bundles.get(workflowsPath);
  if (!code) {
    code = bundleWorkflowCode({ workflowsPath, workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES, logger: quietBundlerLogger }).then(
      (result) => result.code,
    );
    bundles.set(workflowsPath, code);
  }
  return code;
}

const quietBundlerLogger = { trace() {}, debug() {}, info() {}, warn() {}, error: (message: string) => process.stderr.write(`${message}\n`), log() {} };

function present<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('The scenario environment is only available inside a test');
  return value;
}
