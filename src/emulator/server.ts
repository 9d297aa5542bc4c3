import type { AddressInfo } from 'node:net';
import { AccountBook, type AccountSpec } from './accounts';
import { adminRoutes } from './admin';
import { scaledClock, systemClock } from './clock';
import { FaultInjector } from './faults';
import { EmulatorOptionsError, parseEmulatorOptions, type EmulatorOptions, type ParsedEmulatorOptions } from './options';
import { createEmulatorApp } from './pipeline';
import { createRandom, randomSeed } from './random';
import { RateLimiter } from './rate-limit';
import { serviceRoutes } from './routes';
import { StatsRecorder } from './stats';
import { trackedClock, type TrackedClock } from './tracked-clock';
import type { EmulatorContext, Permission } from './types';
import { registerWorkflowStore, WorkflowStore } from './workflows-beta';

/** A running emulator. */
export interface RunningEmulator {
  /** Base URL of the service, ending in `/v1` (what a client takes as `baseUrl`). */
  readonly url: string;
  /** `http://host:port`, for the operator routes under `/_emulator/`. */
  readonly origin: string;
  readonly port: number;
  /** The first account's key (generated when no accounts were given). */
  readonly defaultApiKey: string;
  /** The emulator's clock; `pending()` counts its scheduled timers (0 after `close()`). */
  readonly clock: TrackedClock;
  readonly stats: StatsRecorder;
  readonly accounts: AccountBook;
  /** Fault settings, replaceable at run time (as `POST /_emulator/faults` does). */
  readonly faults: FaultInjector;
  /** The context shared by the emulator's parts. */
  readonly context: EmulatorContext;
  /** Stops listening, cuts keep-alive connections and cancels every emulator timer. */
  close(): Promise<void>;
}

const ALL_PERMISSIONS: readonly Permission[] = ['inference', 'increased_max_results'];
/** Balance of the generated default account. */
export const DEFAULT_CREDITS_USD = 100;

function accountSpecs(parsed: ParsedEmulatorOptions, seed: number | string): AccountSpec[] {
  if (!parsed.accounts) {
    // A separate stream, so ids do not depend on whether the key was generated or given.
    const key = `emu_${createRandom(`${seed}:default-key`).hex(40)}`;
    return [
      { key, organization: 'org_emulator', creditsUsd: parsed.defaultCreditsUsd ?? DEFAULT_CREDITS_USD, permissions: ALL_PERMISSIONS, subscription: true },
    ];
  }
  return parsed.accounts.map((account, index) => ({
    key: account.key,
    organization: account.organization ?? `org_${index + 1}`,
    creditsUsd: account.creditsUsd,
    permissions: account.permissions ?? ALL_PERMISSIONS,
    subscription: account.subscription ?? true,
  }));
}

function checkRouteNames(parsed: ParsedEmulatorOptions, names: ReadonlySet<string>): void {
  const unknown = (field: string, keys: string[]) =>
    keys
      .filter((name) => name !== '*' && !names.has(name))
      .map((name) => ({ path: `${field}.${name}`, message: `unknown route; known routes: ${[...names].sort().join(', ')}` }));
  const issues = [...unknown('faults', Object.keys(parsed.faults ?? {})), ...unknown('rateLimit.routes', Object.keys(parsed.rateLimit?.routes ?? {}))];
  if (issues.length > 0) throw new EmulatorOptionsError(issues);
}

/** Starts the emulator on loopback (a free port by default); options are validated first. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const parsed = parseEmulatorOptions(options);
  const seed = parsed.seed ?? randomSeed();
  const clock = trackedClock(parsed.clock ?? (parsed.speed !== undefined ? scaledClock(parsed.speed) : systemClock));
  const accounts = new AccountBook(accountSpecs(parsed, seed), () => clock.now());
  const stats = new StatsRecorder(() => accounts.totalChargedUsd());
  let baseUrl = '';
  const context: EmulatorContext = { clock, random: createRandom(seed), accounts, stats, baseUrl: () => baseUrl };
  const faults = new FaultInjector(createRandom(`${seed}:faults`), {}, (route, fault) => stats.recordFault(route, fault));
  const workflows = new WorkflowStore(() => clock.now());
  registerWorkflowStore(accounts.all(), workflows);
  const { routes, close: closeResearch } = serviceRoutes({
    ctx: context,
    faults,
    workflows,
    streamDelayMs: parsed.streamDelayMs ?? 10,
    research: options.research,
  });
  const routeNames = new Set(routes.map((route) => route.name));
  checkRouteNames(parsed, routeNames);
  faults.replace(parsed.faults ?? {});
  const log = parsed.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const app = createEmulatorApp({
    routes,
    adminRoutes: adminRoutes({ accounts, stats, faults, routeNames }),
    accounts,
    stats,
    faults,
    rateLimiter: new RateLimiter(parsed.rateLimit, () => clock.now()),
    maxBodyBytes: parsed.maxBodyBytes ?? 1024 * 1024,
    log,
  });
  const host = (parsed.host ?? '127.0.0.1').replace(/^\[(.*)\]$/, '$1');
  await app.listen({ port: parsed.port ?? 0, host });
  const address = app.server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  baseUrl = `${origin}/v1`;
  let closing: Promise<void> | undefined;
  return {
    url: baseUrl,
    origin,
    port: address.port,
    defaultApiKey: accounts.all()[0]?.key ?? '',
    clock,
    stats,
    accounts,
    faults,
    context,
    close: () => {
      closing ??= (async () => {
        clock.cancelAll();
        closeResearch();
        await app.close();
      })();
      return closing;
    },
  };
}
