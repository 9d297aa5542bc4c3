import { Readable } from 'node:stream';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { AccountBook } from './accounts';
import type { FaultInjector } from './faults';
import type { RateLimiter } from './rate-limit';
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
  routes: readonly EmulatorRoute[];
  adminRoutes: readonly AdminRoute[];
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

/** What each fastify route carries in its `config`: the route name its answers count under in stats (none for operator routes). */
interface RouteConfig {
  countAs?: string;
}

/** Methods a path answers 405 for when it has no route of that method (HEAD included: no implicit HEAD routes). */
const METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE'] as const;

const fail = (status: number, error: string, headers?: Record<string, string>): EmulatorResponse => ({
  status,
  json: { success: false, error },
  ...(headers ? { headers } : {}),
});

/**
 * The emulator's HTTP app: fastify routes every request; a service route then authenticates, applies
 * the rate limit and injected faults, parses the JSON body and runs its handler. The body is read raw
 * (up to `maxBodyBytes`, 413 beyond) and parsed after the key check, so a caller without a valid key
 * learns nothing about its body.
 */
export function createEmulatorApp(deps: PipelineDeps): FastifyInstance {
  let requestCount = 0;
  const app = Fastify({
    logger: false,
    bodyLimit: deps.maxBodyBytes,
    // Node's default, as before: clients that keep connections alive longer reconnect.
    keepAliveTimeout: 5_000,
    // close() cuts keep-alive connections and streams in progress.
    forceCloseConnections: true,
    exposeHeadRoutes: false,
    genReqId: () => `req_${(++requestCount).toString(16).padStart(8, '0')}`,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 16_384 },
    // A path segment that is not valid percent-encoding.
    frameworkErrors: (_error, _request, reply) => {
      const answer = fail(400, 'Malformed path');
      deps.stats.recordRequest(UNMATCHED_ROUTE, answer.status);
      (reply as FastifyReply).send(body(deps, reply, answer));
    },
  });

  // Bodies of any content type are read as bytes; JSON is parsed in the pipeline, after the key check.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.setNotFoundHandler((request, reply) => {
    const path = pathname(request.url);
    const answer = fail(404, `Not found: ${request.method} ${path}`);
    if (!path.startsWith('/_emulator/')) deps.stats.recordRequest(UNMATCHED_ROUTE, answer.status);
    reply.send(body(deps, reply, answer));
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    // A caller that hung up before its answer was written: the answer was counted when it was made, and
    // nobody is left to send an error to. Say so; it is not a fault of the emulator.
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE' || reply.raw.destroyed) {
      deps.log(`emulator: the caller left ${request.method} ${logPath(request.url)} before the answer ended`);
      return;
    }
    // Otherwise only the body parser throws here (the routes answer their own errors).
    const countAs =
      'countAs' in request.routeOptions.config
        ? (request.routeOptions.config as RouteConfig).countAs
        : pathname(request.url).startsWith('/_emulator/')
          ? undefined
          : UNMATCHED_ROUTE;
    let answer: EmulatorResponse;
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      answer = fail(413, `Request body exceeds ${deps.maxBodyBytes} bytes`, { connection: 'close' });
    } else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      answer = fail(error.statusCode, error.message);
    } else {
      answer = errorResponse(deps, countAs ?? 'admin', error);
    }
    if (countAs !== undefined) deps.stats.recordRequest(countAs, answer.status);
    reply.send(body(deps, reply, answer));
  });

  for (const route of deps.routes) {
    app.route({
      method: route.method,
      url: route.pattern,
      config: { countAs: route.name } satisfies RouteConfig,
      handler: (request, reply) => serve(deps, route, request, reply),
    });
  }
  for (const route of deps.adminRoutes) {
    app.route({
      method: route.method,
      url: route.pattern,
      config: { countAs: undefined } satisfies RouteConfig,
      handler: (request, reply) => serveAdmin(deps, route, request, reply),
    });
  }
  addMethodNotAllowed(app, deps, deps.routes, false);
  addMethodNotAllowed(app, deps, deps.adminRoutes, true);
  return app;
}

/** For each path, a 405 with `Allow` for the methods it has no route for. */
function addMethodNotAllowed(app: FastifyInstance, deps: PipelineDeps, routes: readonly { method: string; pattern: string }[], admin: boolean): void {
  const methodsByPattern = new Map<string, Set<string>>();
  for (const route of routes) {
    const methods = methodsByPattern.get(route.pattern) ?? new Set<string>();
    methods.add(route.method);
    methodsByPattern.set(route.pattern, methods);
  }
  for (const [pattern, methods] of methodsByPattern) {
    const allowed = [...methods].sort().join(', ');
    const others = METHODS.filter((method) => !methods.has(method));
    app.route({
      method: others,
      url: pattern,
      config: { countAs: admin ? undefined : UNMATCHED_ROUTE } satisfies RouteConfig,
      handler: (request, reply) => {
        const answer = fail(405, `Method ${request.method} not allowed on ${pathname(request.url)}`, { allow: allowed });
        if (!admin) deps.stats.recordRequest(UNMATCHED_ROUTE, answer.status);
        reply.send(body(deps, reply, answer));
      },
    });
  }
}

/** A service route's answer: the body for fastify to send, or undefined once the connection is dropped. */
async function serve(deps: PipelineDeps, route: EmulatorRoute, request: FastifyRequest, reply: FastifyReply): Promise<Payload | undefined> {
  let handlerRan = false;
  let answer: EmulatorResponse;
  try {
    const account = authenticate(deps, request, route);
    await injectBeforeHandler(deps, route.name, account);
    const body = parseJsonBody(request.body);
    handlerRan = true;
    answer = await route.handle({ ...requestParts(request), body, account });
  } catch (error) {
    answer = errorResponse(deps, route.name, error);
  }
  if (handlerRan && deps.faults.dropAfterProcessing(route.name)) {
    deps.stats.recordDroppedConnection(route.name);
    reply.hijack();
    request.raw.socket.destroy();
    return undefined;
  }
  if (answer.status < 300 && 'json' in answer && isStatusBody(answer.json) && deps.faults.unknownStatus(route.name)) {
    answer = { ...answer, json: { ...answer.json, status: UNKNOWN_STATUS } };
  }
  deps.stats.recordRequest(route.name, answer.status);
  return body(deps, reply, answer);
}

async function serveAdmin(deps: PipelineDeps, route: AdminRoute, request: FastifyRequest, reply: FastifyReply): Promise<Payload> {
  let answer: EmulatorResponse;
  try {
    answer = await route.handle({ ...requestParts(request), body: parseJsonBody(request.body) });
  } catch (error) {
    answer = errorResponse(deps, 'admin', error);
  }
  return body(deps, reply, answer);
}

function requestParts(request: FastifyRequest): Omit<EmulatorRequest, 'account' | 'body'> {
  const question = request.url.indexOf('?');
  return {
    method: request.method,
    path: question < 0 ? request.url : request.url.slice(0, question),
    params: request.params as Record<string, string>,
    query: new URLSearchParams(question < 0 ? '' : request.url.slice(question + 1)),
    headers: request.headers,
  };
}

/** The state an `unknownStatusRate` fault answers with: none of the spec's. */
export const UNKNOWN_STATUS = 'reticulating';

const isStatusBody = (json: unknown): json is Record<string, unknown> & { status: string } =>
  typeof json === 'object' && json !== null && !Array.isArray(json) && typeof (json as { status?: unknown }).status === 'string';

/** Parses a JSON body; an empty body is `undefined`, invalid JSON a 400. */
function parseJsonBody(raw: unknown): unknown {
  const text = Buffer.isBuffer(raw) ? raw.toString('utf8') : '';
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw EmulatorHttpError.of(400, `Invalid JSON body: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function authenticate(deps: PipelineDeps, request: FastifyRequest, route: EmulatorRoute): Account {
  const header = request.headers['x-api-key'];
  const key = (Array.isArray(header) ? header[0] : header)?.trim();
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

function errorResponse(deps: PipelineDeps, routeName: string, error: unknown): EmulatorResponse {
  if (error instanceof EmulatorHttpError) return { status: error.status, json: error.body, headers: error.headers };
  deps.log(`emulator: internal error on route ${routeName}: ${describe(error)}`);
  return fail(500, INTERNAL_ERROR);
}

/** What fastify sends: serialised JSON, bytes, or a stream of SSE events. */
type Payload = string | Buffer | Readable;

/**
 * Sets the status and headers of a JSON, raw or SSE answer (tagged with the request id) and returns the
 * body. Handlers return it rather than send it: an async handler that sent and returned `reply` would
 * have fastify wait on the reply as a promise, which costs every request.
 */
function body(deps: PipelineDeps, reply: FastifyReply, answer: EmulatorResponse): Payload {
  reply.code(answer.status).header('x-request-id', reply.request.id);
  if (answer.headers) reply.headers(answer.headers);
  if ('json' in answer) {
    reply.type('application/json; charset=utf-8');
    return JSON.stringify(answer.json);
  }
  if ('raw' in answer) {
    reply.type(answer.contentType);
    return Buffer.from(answer.raw.buffer, answer.raw.byteOffset, answer.raw.byteLength);
  }
  reply.type('text/event-stream; charset=utf-8').header('cache-control', 'no-cache');
  // A caller that hangs up ends the stream: fastify destroys it, and the generator's `finally` blocks run.
  return Readable.from(sseEvents(deps, reply, answer.sse));
}

async function* sseEvents(deps: PipelineDeps, reply: FastifyReply, payloads: AsyncIterable<string>): AsyncGenerator<string> {
  try {
    for await (const payload of payloads) yield formatSseEvent(payload);
  } catch (error) {
    // The status is gone already: all that is left is to cut the connection (fastify does) and say why.
    deps.log(`emulator: failed while answering ${reply.request.method} ${logPath(reply.request.url)}: ${describe(error)}`);
    throw error;
  }
}

/** One SSE event: every line of `payload` as a `data:` line, then a blank line. */
function formatSseEvent(payload: string): string {
  return `${payload
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}`)
    .join('\n')}\n\n`;
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

function pathname(url: string): string {
  return new URL(url, 'http://emulator').pathname;
}

/** The request path for logs, with the API key of operator account routes masked. */
function logPath(url: string): string {
  return (url.split('?')[0] ?? '/').replace(/^\/_emulator\/accounts\/[^/]+/, '/_emulator/accounts/[key]');
}
