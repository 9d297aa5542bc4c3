import { z } from 'zod';
import type { AccountBook } from './accounts';
import { faultConfig, type FaultConfig, type FaultInjector } from './faults';
import type { AdminRoute } from './pipeline';
import type { StatsRecorder } from './stats';
import { EmulatorHttpError } from './types';
import { parseRequest } from './validation';

/** What the operator routes act on. */
export interface AdminDeps {
  accounts: AccountBook;
  stats: StatsRecorder;
  faults: FaultInjector;
  routeNames: ReadonlySet<string>;
}

const creditsRequest = z
  .strictObject({
    creditsUsd: z.number().finite('must be a finite number'),
    /** `add` (default) tops up; `set` replaces the balance (to drain an account in a test). */
    mode: z.enum(['add', 'set']).optional(),
  })
  .refine((body) => (body.mode === 'set' ? body.creditsUsd >= 0 : body.creditsUsd > 0), {
    path: ['creditsUsd'],
    message: 'must be > 0 to add, or >= 0 to set',
  });

/** Throws a 400 naming each unknown route in a fault configuration (a typo would silently inject nothing). */
export function checkFaultRoutes(config: FaultConfig, routeNames: ReadonlySet<string>): void {
  const unknown = Object.keys(config).filter((name) => name !== '*' && !routeNames.has(name));
  if (unknown.length > 0) {
    throw EmulatorHttpError.of(
      400,
      `Invalid request parameters: faults: unknown route ${unknown.map((name) => `"${name}"`).join(', ')}; known routes: ${[...routeNames].sort().join(', ')}`,
    );
  }
}

/**
 * Operator routes, open without a key because the emulator only listens on loopback:
 * `GET /_emulator/stats`, `GET /_emulator/accounts/:key`, `POST /_emulator/accounts/:key/credits`,
 * `GET|POST /_emulator/faults`, `GET /_emulator/health`.
 */
export function adminRoutes(deps: AdminDeps): AdminRoute[] {
  const accountOr404 = (key: string) => {
    const account = deps.accounts.find(key);
    if (!account) throw EmulatorHttpError.of(404, 'Unknown account');
    return account;
  };
  return [
    { method: 'GET', pattern: '/_emulator/health', handle: () => ({ status: 200, json: { success: true } }) },
    // The bare snapshot (no envelope), so tests and benchmarks read `requests`, `tasksCreated`... directly.
    { method: 'GET', pattern: '/_emulator/stats', handle: () => ({ status: 200, json: deps.stats.snapshot() }) },
    {
      method: 'GET',
      pattern: '/_emulator/accounts/:key',
      handle: ({ params }) => {
        const account = accountOr404(params.key ?? '');
        return {
          status: 200,
          json: {
            success: true,
            organization: account.organization,
            creditsUsd: account.creditsUsd,
            permissions: [...account.permissions],
            subscription: account.subscription,
          },
        };
      },
    },
    {
      method: 'POST',
      pattern: '/_emulator/accounts/:key/credits',
      handle: ({ params, body }) => {
        const request = parseRequest(creditsRequest, body);
        const key = params.key ?? '';
        accountOr404(key);
        const creditsUsd = request.mode === 'set' ? deps.accounts.setBalance(key, request.creditsUsd) : deps.accounts.topUp(key, request.creditsUsd);
        return { status: 200, json: { success: true, creditsUsd } };
      },
    },
    { method: 'GET', pattern: '/_emulator/faults', handle: () => ({ status: 200, json: { success: true, faults: deps.faults.current() } }) },
    {
      method: 'POST',
      pattern: '/_emulator/faults',
      handle: ({ body }) => {
        const config = parseRequest(faultConfig, body, 'faults');
        checkFaultRoutes(config, deps.routeNames);
        deps.faults.replace(config);
        return { status: 200, json: { success: true, faults: deps.faults.current() } };
      },
    },
  ];
}
