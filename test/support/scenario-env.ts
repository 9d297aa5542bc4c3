import type { QueryDefinition, SignalDefinition, UpdateDefinition } from '@temporalio/common';
import type { Clock } from '../../src/emulator/clock';
import { FakeClock, WorkflowHarness } from './harness';
import { resolveActivities, type ScenarioSetup } from './scenario-setup';
import { acquireServer, findTemporalServer, PROBE_RESULT_VARIABLE, releaseServer, ServerScenarioEnv, type ServerConnection } from './server-env';

/**
 * The one interface a workflow scenario is written against. Two implementations: the in-process
 * harness (`kind: 'harness'`, fake clock, time skipped on demand) and a real Temporal server
 * (`kind: 'server'`, real time), so each scenario is written once and runs on both.
 */
export interface ScenarioEnv {
  readonly kind: 'harness' | 'server';
  /** The environment's time: a FakeClock (harness) or systemClock (server). Hand it to an emulator. */
  readonly clock: Clock;
  /** Starts a workflow by type name. */
  start<R = unknown>(workflowType: string, options: ScenarioStartOptions): Promise<ScenarioHandle<R>>;
  /** A handle on the latest execution with this id (a child workflow, say). */
  getHandle<R = unknown>(workflowId: string): ScenarioHandle<R>;
  /** Lets `ms` of environment time pass (skipped on the harness, really waited on the server). */
  sleep(ms: number): Promise<void>;
  /**
   * Lets time pass until `predicate` holds, checking after every step (harness) or poll (server).
   * Rejects with a WaitTimeoutError naming `description` after `timeoutMs` of environment time.
   */
  waitUntil(predicate: () => boolean | Promise<boolean>, options?: WaitUntilOptions): Promise<void>;
  /** Stops workers and releases everything the environment holds. */
  close(): Promise<void>;
}

/** Options of {@link ScenarioEnv.start}. */
export interface ScenarioStartOptions {
  readonly workflowId: string;
  readonly args?: readonly unknown[];
}

/** Options of {@link ScenarioEnv.waitUntil}. */
export interface WaitUntilOptions {
  /** Environment time to wait at most; default 60 s. */
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
  /** Waits for the execution to close (advancing time on the harness); rejects with WorkflowFailedError. */
  result(): Promise<R>;
  /** Latest custom search attribute values by name. */
  searchAttributes(): Promise<Record<string, unknown>>;
  /** Largest payload that crossed the workflow boundary, in bytes (server: computed from history). */
  largestPayloadBytes(): Promise<number>;
  /** True when any payload in the history (every run of the chain) contains `text`: secrets must not. */
  payloadsContain(text: string): Promise<boolean>;
  /** Number of events in the current run's history (approximate on the harness). */
  historyLength(): Promise<number>;
  /** Number of runs in the continue-as-new chain so far. */
  runCount(): Promise<number>;
}

export type { ScenarioSetup } from './scenario-setup';
// Both environments throw these, so scenarios assert on them whichever one runs.
export {
  WaitTimeoutError,
  WorkflowFailedError,
  WorkflowNotRunningError,
  WorkflowQueryFailedError,
  WorkflowUpdateFailedError,
} from './harness/errors';

/** How long a server block may take to connect or start its server (a first download included). */
const SERVER_SETUP_TIMEOUT_MS = 120_000;

let serverReasonPrinted = false;

/**
 * Defines the scenarios in `body` twice: a `describe` on the in-process harness (always) and one on
 * a real Temporal server (see findTemporalServer). Each test gets a fresh environment from
 * `getEnv()`. Without a server the server block is skipped, its title names the reason, and the
 * reason is printed once per test file: skipped, never silently passed.
 */
export function describeScenarios(title: string, setup: ScenarioSetup, body: (getEnv: () => ScenarioEnv) => void): void {
  describe(`${title} [harness]`, () => {
    let env: WorkflowHarness | undefined;
    beforeEach(async () => {
      const clock = new FakeClock();
      env = await WorkflowHarness.create({
        workflowsPath: setup.workflowsPath,
        activities: resolveActivities(setup, clock),
        clock,
        searchAttributes: setup.searchAttributes,
      });
    });
    afterEach(async () => {
      await env?.close();
      env = undefined;
    });
    body(() => present(env, 'harness'));
  });

  const server = findTemporalServer();
  if (!server.available) {
    // Under `npm test` the global setup has printed the reason once for the whole run.
    if (!serverReasonPrinted && !process.env[PROBE_RESULT_VARIABLE]) {
      serverReasonPrinted = true;
      beforeAll(() => console.warn(`Real-server scenarios skipped: ${server.reason}`));
    }
    describe.skip(`${title} [server: skipped, ${server.reason}]`, () => body(() => present<ScenarioEnv>(undefined, 'server')));
    return;
  }
  describe(`${title} [server]`, () => {
    let connection: ServerConnection | undefined;
    let env: ServerScenarioEnv | undefined;
    beforeAll(async () => {
      connection = await acquireServer(server.plan, setup.searchAttributes);
    }, SERVER_SETUP_TIMEOUT_MS);
    afterAll(() => releaseServer());
    beforeEach(async () => {
      env = await ServerScenarioEnv.create(present(connection, 'server'), setup);
    });
    afterEach(async () => {
      await env?.close();
      env = undefined;
    });
    body(() => present(env, 'server'));
  });
}

function present<T>(value: T | undefined, kind: string): T {
  if (value === undefined) throw new Error(`The ${kind} scenario environment is only available inside a test`);
  return value;
}
