import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccountBook } from './accounts';
import type { FaultInjector } from './faults';
import { headerValue, parseJsonBody, readBody, writeResponse } from './http-io';
import type { RateLimiter } from './rate-limit';
import type { Router } from './router';
import type { StatsRecorder } from './stats';
import { realDelay } from './tracked-clock';
import { EmulatorHttpError, type Account, type EmulatorRequest, type EmulatorResponse, type EmulatorRoute } from './types';

/** An operator route under `/_emulator/`: no key, no faults, no rate limit, not counted in stats. */
export interface AdminRoute {
  readonly method: EmulatorRoute['method'];
  readonly pattern: string;
  handle(request: Omit<EmulatorRequest, 'account'>): EmulatorResponse | Promise<EmulatorResponse>;
}

/** What the request pipeline needs from the server. */
export interface PipelineDeps {
  router: Router<EmulatorRoute>;
  adminRouter: Router<AdminRoute>;
  accounts: AccountBook;
  stats: StatsRecorder;
  faults: FaultInjector;
  rateLimiter: RateLimiter;
  maxBodyBytes: number;
  log(line: string): void;
}

/** Route name under which requests to no route are counted. */
export const UNMATCHED_ROUTE = 'unmatched';
const INTERNAL_ERROR = 'Internal server error, please try again later';

const fail = (status: number, error: string, headers?: Record<string, string>): EmulatorResponse =>
  ({ status, json: { success: false, error }, ...(headers ? { headers } : {}) });

/** Builds the `(request, response)` listener: routing, body, auth, limits, faults, handler, answer. */
export function createRequestListener(deps: PipelineDeps): (request: IncomingMessage, response: ServerResponse) => void {
  let requestCount = 0;
  return (request, response) => {
    requestCount += 1;
    response.setHeader('x-request-id', `req_${requestCount.toString(16).padStart(8, '0')}`);
    handle(deps, request, response).catch((error: unknown) => {
      // Headers may be gone already (a stream failed half-way): all that is left is to cut the connection.
      deps.log(`emulator: failed while answering ${request.method} ${pathOf(request)}: ${describe(error)}`);
      response.destroy();
    });
  };
}

async function handle(deps: PipelineDeps, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://emulator');
  const method = request.method ?? 'GET';
  const path = url.pathname;
  if (path.startsWith('/_emulator/')) {
    await writeResponse(response, await handleAdmin(deps, request, method, url));
    return;
  }
  const match = deps.router.match(method, path);
  if (match.kind !== 'found') {
    const answer = match.kind === 'methodNotAllowed'
      ? fail(405, `Method ${method} not allowed on ${path}`, { allow: match.allowed.join(', ') })
      : match.kind === 'badPath' ? fail(400, 'Malformed path') : fail(404, `Not found: ${method} ${path}`);
    deps.stats.recordRequest(UNMATCHED_ROUTE, answer.status);
    await writeResponse(response, answer);
    return;
  }
  const { route, params } = match;
  let handlerRan = false;
  let answer: EmulatorResponse;
  try {
    const raw = await readBody(request, deps.maxBodyBytes);
    const account = authenticate(deps, request, route);
    await injectBeforeHandler(deps, route.name, account);
    const body = parseJsonBody(raw);
    handlerRan = true;
    answer = await route.handle({ method, path, params, query: url.searchParams, body, headers: request.headers, account });
  } catch (error) {
    answer = errorResponse(deps, route.name, error);
  }
  if (handlerRan && deps.faults.dropAfterProcessing(route.name)) {
    deps.stats.recordDroppedConnection(route.name);
    request.socket.destroy();
    return;
  }
  if (answer.status < 300 && 'json' in answer && isStatusBody(answer.json) && deps.faults.unknownStatus(route.name)) {
    answer = { ...answer, json: { ...answer.json, status: UNKNOWN_STATUS } };
  }
  if (answer.status === 413) response.setHeader('connection', 'close');
  deps.stats.recordRequest(route.name, answer.status);
  await writeResponse(response, answer);
}

/** The state an `unknownStatusRate` fault answers with: none of the spec's. */
export const UNKNOWN_STATUS = 'reticulating';

const isStatusBody = (json: unknown): json is Record<string, unknown> & { status: string } =>
  typeof json === 'object' && json !== null && !Array.isArray(json) && typeof (json as { status?: unknown }).status === 'string';

function authenticate(deps: PipelineDeps, request: IncomingMessage, route: EmulatorRoute): Account {
  const key = headerValue(request, 'x-api-key')?.trim();
  const account = key ? deps.accounts.find(key) : undefined;
  if (!account) throw EmulatorHttpError.of(401, 'Invalid API key');
  if (route.requiresInference && !account.permissions.has('inference')) {
    throw EmulatorHttpError.of(403, 'API key does not have inference permission');
  }
  return account;
}

async function injectBeforeHandler(deps: PipelineDeps, routeName: string, account: Account): Promise<void> {
  const waitSeconds = deps.rateLimiter.take(account.key, routeName);
  if (waitSeconds !== undefined) {
    deps.stats.recordRateLimited();
    throw EmulatorHttpError.of(429, 'Rate limit exceeded. Please retry later.', { 'retry-after': String(waitSeconds) });
  }
  await realDelay(deps.faults.latencyMs(routeName));
  const decision = deps.faults.beforeHandler(routeName);
  if (decision.kind === 'rateLimitBurst') {
    throw EmulatorHttpError.of(429, 'Rate limit exceeded. Please retry later.', { 'retry-after': String(decision.retryAfterSeconds) });
  }
  if (decision.kind === 'error') {
    throw EmulatorHttpError.of(decision.status, INTERNAL_ERROR);
  }
}

async function handleAdmin(deps: PipelineDeps, request: IncomingMessage, method: string, url: URL): Promise<EmulatorResponse> {
  const match = deps.adminRouter.match(method, url.pathname);
  if (match.kind === 'methodNotAllowed') return fail(405, `Method ${method} not allowed on ${url.pathname}`, { allow: match.allowed.join(', ') });
  if (match.kind !== 'found') return fail(404, `Not found: ${method} ${url.pathname}`);
  try {
    const body = parseJsonBody(await readBody(request, deps.maxBodyBytes));
    return await match.route.handle({ method, path: url.pathname, params: match.params, query: url.searchParams, body, headers: request.headers });
  } catch (error) {
    return errorResponse(deps, 'admin', error);
  }
}

function errorResponse(deps: PipelineDeps, routeName: string, error: unknown): EmulatorResponse {
  if (error instanceof EmulatorHttpError) return { status: error.status, json: error.body, headers: error.headers };
  deps.log(`emulator: internal error on route ${routeName}: ${describe(error)}`);
  return fail(500, INTERNAL_ERROR);
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** The request path for logs, with the API key of operator account routes masked. */
function pathOf(request: IncomingMessage): string {
  return ((request.url ?? '/').split('?')[0] ?? '/').replace(/^\/_emulator\/accounts\/[^/]+/, '/_emulator/accounts/[key]');
}
