import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ResearchClient } from '../../src/api';
import {
  createActivities,
  InMemoryWebhookSecretStore,
  LocalArtifactStore,
  type ActivityDeps,
  type ArtifactStore,
  type WebhookSecretStore,
} from '../../src/activities';
import type { EmulatorOptions } from '../../src/emulator/options';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import type { Intake } from '../../src/intake';
import { POLL_PROFILES, RECONCILE_DELAYS_MS } from '../../src/workflows/polling';
import { RESEARCH_SEARCH_ATTRIBUTES } from '../../src/workflows/search-attributes';
import type { ScenarioEnv, ScenarioHandle, ScenarioSetup } from '../support/scenario-env';
import { listenOnLoopback, scenarioIntake } from '../support/scenario-intake';
import type { PollingOverrides } from '../../src/domain/research-types';

type Activities = ReturnType<typeof createActivities>;

/** Everything one research scenario runs against: an emulator on the environment's clock, a store, and the intake. */
export interface ResearchWorld {
  emulator: RunningEmulator;
  api: ResearchClient;
  store: ArtifactStore;
  /** The worker's webhook secrets. */
  secrets: WebhookSecretStore;
  /** Poll and reconcile delays scaled down like the emulator's clock (pass as the workflow's `polling`). */
  polling: PollingOverrides;
  /** Lets `ms` of emulator time pass. */
  pass(ms: number): Promise<void>;
  /** Base URL of the intake (`rp intake`'s server, on loopback), when the world was made with webhooks. */
  intakeUrl?: string;
  /** The intake key the worker's webhook URLs and the intake share. */
  intakeKey: string;
  /** Kept for older scenarios: the real intake finds workflows by the id in the webhook URL, so nothing needs routing. */
  route(handle: ScenarioHandle<unknown>): void;
  /** Webhooks the intake verified (signalled), took as duplicates, and rejected. */
  readonly intake: { verified: number; rejected: number; duplicates: number };
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
const names = Object.keys(
  createActivities({
    api: new ResearchClient({ apiKey: 'unused', baseUrl: 'http://127.0.0.1:1/v1' }),
    store: new LocalArtifactStore(tmpdir()),
    secrets: new InMemoryWebhookSecretStore(),
  }),
) as Array<keyof Activities>;

/** The scenario setup shared by research workflow tests. */
export const researchSetup: ScenarioSetup = {
  workflowsPath: require.resolve('../../src/workflows'),
  activities: Object.fromEntries(
    names.map((name) => [
      name,
      (...args: unknown[]) => {
        if (!current) throw new Error('no research world: call makeWorld() in the test first');
        return (current[name] as (...values: unknown[]) => unknown)(...args);
      },
    ]),
  ),
  searchAttributes: RESEARCH_SEARCH_ATTRIBUTES,
};

/** Options of `makeWorld`. */
export interface WorldOptions {
  emulator?: Omit<EmulatorOptions, 'clock' | 'speed'>;
  /** Start the intake on loopback and request completion webhooks through it. */
  webhooks?: boolean;
  /** The client's own time limit per call (to let injected latency time calls out). */
  clientTimeoutMs?: number;
  /** The worker's artifact store (a local store in a temporary folder when unset). */
  store?: ArtifactStore;
  /** The intake key (random by default). */
  intakeKey?: string;
  /** The worker's webhook secret store (in memory by default). */
  secrets?: WebhookSecretStore;
  /** The intake's (the worker's by default). */
  intakeSecrets?: WebhookSecretStore;
  /** More of the worker's activity dependencies (a notification secret, the environment of a SQL sink). */
  deps?: Partial<ActivityDeps>;
}

/**
 * Starts an emulator running at the scenario's speed and binds the activities to it. The workflows'
 * timers are real, so their poll and reconcile delays are scaled down by the same factor (`polling`).
 */
export async function makeWorld(env: ScenarioEnv, options: WorldOptions = {}): Promise<ResearchWorld> {
  const emulator = await startEmulator({ seed: 11, ...options.emulator, speed: env.speed, research: { durationJitter: 0, ...options.emulator?.research } });
  const api = new ResearchClient({
    apiKey: emulator.defaultApiKey,
    baseUrl: emulator.url,
    ...(options.clientTimeoutMs !== undefined ? { timeoutMs: options.clientTimeoutMs } : {}),
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'rp-scenario-'));
  const store = options.store ?? new LocalArtifactStore(dir);
  const secrets = options.secrets ?? new InMemoryWebhookSecretStore();
  const intakeKey = options.intakeKey ?? randomBytes(32).toString('hex');
  let intake: Intake | undefined;
  let intakeUrl: string | undefined;
  if (options.webhooks) {
    // The real intake; webhook timestamps are checked against the emulator's (fast) clock.
    intake = await scenarioIntake(
      env,
      { secrets: options.intakeSecrets ?? secrets, intakeKey },
      { tokens: [], pipelinesDir: path.resolve(__dirname, '../../pipelines'), now: () => emulator.clock.now() },
    );
    intakeUrl = await listenOnLoopback(intake);
  }
  const deps: ActivityDeps = { api, store, secrets, ...(intakeUrl ? { webhookBaseUrl: intakeUrl, intakeKey } : {}), ...options.deps };
  current = createActivities(deps);
  return {
    emulator,
    api,
    store,
    secrets,
    intakeUrl,
    intakeKey,
    get intake() {
      const counts = intake?.metrics.counts();
      return { verified: counts?.verified ?? 0, rejected: counts?.rejected ?? 0, duplicates: counts?.duplicates ?? 0 };
    },
    polling: scaledPolling(env.speed),
    pass: (ms) => env.sleep(ms),
    route: () => undefined,
    close: async () => {
      current = undefined;
      await intake?.app.close();
      await api.close();
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
