import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ResearchClient } from '../../src/api';
import { createActivities, InMemoryWebhookSecretStore, LocalArtifactStore, type ActivityDeps } from '../../src/activities';
import type { EmulatorOptions } from '../../src/emulator/options';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import { webhookReceivedSignal } from '../../src/workflows/definitions';
import { POLL_PROFILES, RECONCILE_DELAYS_MS } from '../../src/workflows/polling';
import { RESEARCH_SEARCH_ATTRIBUTES } from '../../src/workflows/search-attributes';
import type { PollingOverrides } from '../../src/workflows/types';
import type { ScenarioEnv, ScenarioHandle, ScenarioSetup } from '../support/scenario-env';
import { startWebhookRelay } from '../support/webhook-relay';

type Activities = ReturnType<typeof createActivities>;

/** Everything one research scenario runs against: an emulator on the environment's clock, a store, and a stand-in intake. */
export interface ResearchWorld {
  emulator: RunningEmulator;
  api: ResearchClient;
  store: LocalArtifactStore;
  secrets: InMemoryWebhookSecretStore;
  /** Poll and reconcile delays scaled down like the emulator's clock (pass as the workflow's `polling`). */
  polling: PollingOverrides;
  /** Lets `ms` of emulator time pass. */
  pass(ms: number): Promise<void>;
  /** Base URL of the stand-in intake, when the world was made with webhooks. */
  intakeUrl?: string;
  /** Routes webhooks for this workflow to `handle` (others go to the scenario's workflow of that id). */
  route(handle: ScenarioHandle<unknown>): void;
  /** Webhooks the intake verified and rejected. */
  intake: { verified: number; rejected: number };
  close(): Promise<void>;
}

let current: Activities | undefined;

/** The standard mode's poll profile and the reconcile delays, `speed` times shorter. */
function scaledPolling(speed: number): PollingOverrides {
  const scale = (ms: number) => Math.max(1, Math.round(ms / speed));
  return {
    initialDelayMs: scale(POLL_PROFILES.fast.initialDelayMs),
    maxDelayMs: scale(POLL_PROFILES.standard.maxDelayMs),
    reconcileDelaysMs: RECONCILE_DELAYS_MS.map(scale),
  };
}

/** Replaces one activity of the current world for the rest of a test (to make the service refuse something). */
export function replaceActivity<Name extends keyof Activities>(name: Name, replacement: (original: Activities[Name]) => Activities[Name]): void {
  if (!current) throw new Error('no research world: call makeWorld() in the test first');
  current = { ...current, [name]: replacement(current[name]) };
}

// Activity names are fixed by createActivities; the scenario setup registers delegates so each test can
// bind them to its own emulator after the environment (and its clock) exists.
const names = Object.keys(createActivities({
  api: new ResearchClient({ apiKey: 'unused', baseUrl: 'http://127.0.0.1:1/v1' }),
  store: new LocalArtifactStore(tmpdir()),
  secrets: new InMemoryWebhookSecretStore(),
})) as Array<keyof Activities>;

/** The scenario setup shared by research workflow tests. */
export const researchSetup: ScenarioSetup = {
  workflowsPath: require.resolve('../../src/workflows'),
  activities: Object.fromEntries(names.map((name) => [name, (...args: unknown[]) => {
    if (!current) throw new Error('no research world: call makeWorld() in the test first');
    return (current[name] as (...values: unknown[]) => unknown)(...args);
  }])),
  searchAttributes: RESEARCH_SEARCH_ATTRIBUTES,
};

/** Options of `makeWorld`. */
export interface WorldOptions {
  emulator?: Omit<EmulatorOptions, 'clock' | 'speed'>;
  /** Start a stand-in intake and request completion webhooks through it. */
  webhooks?: boolean;
  /** The client's own time limit per call (to let injected latency time calls out). */
  clientTimeoutMs?: number;
}

/**
 * Starts an emulator running at the scenario's speed and binds the activities to it. The workflows'
 * timers are real, so their poll and reconcile delays are scaled down by the same factor (`polling`).
 */
export async function makeWorld(env: ScenarioEnv, options: WorldOptions = {}): Promise<ResearchWorld> {
  const emulator = await startEmulator({ seed: 11, ...options.emulator, speed: env.speed, research: { durationJitter: 0, ...options.emulator?.research } });
  const api = new ResearchClient({ apiKey: emulator.defaultApiKey, baseUrl: emulator.url, ...(options.clientTimeoutMs !== undefined ? { timeoutMs: options.clientTimeoutMs } : {}) });
  const dir = await mkdtemp(path.join(tmpdir(), 'rp-scenario-'));
  const store = new LocalArtifactStore(dir);
  const secrets = new InMemoryWebhookSecretStore();
  const handles = new Map<string, ScenarioHandle<unknown>>();
  const relay = options.webhooks
    ? await startWebhookRelay({
      secrets,
      now: () => emulator.clock.now(),
      // Workflows the test registered, else any workflow of the scenario (a pipeline run's children).
      deliver: async (workflowId, notice) => {
        await (handles.get(workflowId) ?? env.getHandle(workflowId)).signal(webhookReceivedSignal, notice);
        return true;
      },
    })
    : undefined;
  const intakeUrl = relay?.url;
  const deps: ActivityDeps = { api, store, secrets, ...(intakeUrl ? { webhookBaseUrl: intakeUrl } : {}) };
  current = createActivities(deps);
  return {
    emulator, api, store, secrets, intakeUrl,
    intake: relay?.counts ?? { verified: 0, rejected: 0 },
    polling: scaledPolling(env.speed),
    pass: (ms) => env.sleep(ms),
    route: (handle) => void handles.set(handle.workflowId, handle),
    close: async () => {
      current = undefined;
      await relay?.close();
      await api.close();
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
