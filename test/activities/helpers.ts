import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Info } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { redactingTestLogger } from '../support/test-logger';
import { MockAgent, type Interceptable } from 'undici';
import { ResearchClient } from '../../src/api';
import { createActivities, InMemoryWebhookSecretStore, LocalArtifactStore } from '../../src/activities';

/** The fake service's origin and key; tests assert the key never leaks. */
export const ORIGIN = 'https://research.test';
export const API_KEY = 'rk_test_5ecret_key_value_0123';
export const INTAKE = 'https://intake.example.com';
export const WORKFLOW_ID = 'research/run-1/item 7';
export const INTAKE_KEY = 'ik_activities_test_0123456789abcdef01234567';

/** A mock activity environment whose `call` keeps the activity's input and output types. */
export class ActivityTestEnvironment extends MockActivityEnvironment {
  // The SDK's mock info says the attempt was scheduled at 1 ms after the epoch with a 1 s timeout, which
  // would leave service calls no time at all: give each attempt a minute from now, as a worker would.
  constructor(info: Partial<Info> = {}, options?: ConstructorParameters<typeof MockActivityEnvironment>[1]) {
    const now = Date.now();
    super({ startToCloseTimeoutMs: 60_000, currentAttemptScheduledTimestampMs: now, ...info }, options);
  }

  /** Runs one activity with its input, typed from the activity itself. */
  call<I, O>(activity: (input: I) => Promise<O>, input: NoInfer<I>): Promise<O> {
    return this.run<[I], O, (input: I) => Promise<O>>(activity, input);
  }
}

/** Everything one activity test needs: a mocked service, a temp store, secrets and the activities. */
export interface Setup {
  agent: MockAgent;
  service: Interceptable;
  store: LocalArtifactStore;
  secrets: InMemoryWebhookSecretStore;
  activities: ReturnType<typeof createActivities>;
  /** A fresh activity environment (attempt, heartbeat details...) for one call. */
  env(info?: Partial<Info>): ActivityTestEnvironment;
  cleanup(): Promise<void>;
}

/** Builds a mocked service (no real network) and activities bound to it. */
export async function setup(): Promise<Setup> {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const api = new ResearchClient({ apiKey: API_KEY, baseUrl: `${ORIGIN}/v1`, dispatcher: agent, timeoutMs: 300 });
  const dir = await mkdtemp(path.join(tmpdir(), 'rp-activities-'));
  const store = new LocalArtifactStore(dir);
  const secrets = new InMemoryWebhookSecretStore();
  const activities = createActivities({ api, store, secrets, webhookBaseUrl: INTAKE, intakeKey: INTAKE_KEY });
  return {
    agent,
    service: agent.get(ORIGIN),
    store,
    secrets,
    activities,
    env: (info = {}) =>
      new ActivityTestEnvironment({ workflowExecution: { workflowId: WORKFLOW_ID, runId: 'run-1' }, ...info }, { logger: redactingTestLogger('error') }),
    cleanup: async () => {
      await agent.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A task creation answer. */
export function createdTask(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { deepresearch_id: 'dr_1', status: 'running', mode: 'standard', created_at: '2025-01-01T00:00:00Z', ...overrides };
}

/** A full task status answer. */
export function taskBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { deepresearch_id: 'dr_1', status: 'running', query: 'q', mode: 'standard', created_at: '2025-01-01T00:00:00Z', ...overrides };
}

/** Reads a request body the mock saw. */
export function jsonOf(body: unknown): Record<string, unknown> {
  return JSON.parse(String(body)) as Record<string, unknown>;
}

/** A network error as undici raises it, with its code. */
export function networkError(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * A fresh testbed per test (MockAgent, client, store, secrets); after each test it checks that every
 * expected call was made and cleans up. Returns a getter for the current one.
 */
export function useTestbed(): () => Setup {
  let current: Setup | undefined;
  beforeEach(async () => {
    current = await setup();
  });
  afterEach(async () => {
    current?.agent.assertNoPendingInterceptors();
    await current?.cleanup();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('the activity testbed exists only inside a test');
    return current;
  };
}
