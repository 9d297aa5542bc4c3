import type { Dispatcher } from 'undici';
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { inspect } from 'node:util';
import { z } from 'zod';
import { Deadline } from './deadline';
import { ResearchApiError, type RequestTarget } from './errors';
import { limiterFor, type KeyRateLimiter, type RateRule } from './rate-limiter';

/** Settings of a client of the research service. */
export const clientOptions = z.object({
  apiKey: z.string().min(1, 'is required'),
  baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://api.example.com/v1' }),
  timeoutMs: z.int().positive().default(60_000),
  userAgent: z.string().default('research-pipelines'),
  /** Largest JSON answer read (bytes); a longer one is refused, not buffered. */
  maxJsonBytes: z
    .int()
    .positive()
    .default(32 * 1024 * 1024),
  /** Largest file downloaded (bytes): deliverables, PDFs and images the service links to. */
  maxDownloadBytes: z
    .int()
    .positive()
    .default(512 * 1024 * 1024),
  /** Largest single event of an Answer stream (bytes). */
  maxEventBytes: z
    .int()
    .positive()
    .default(4 * 1024 * 1024),
  /**
   * Fetch files the service links to from private, loopback or link-local addresses too. Off by default:
   * a link the service returns must not reach into the worker's own network (SSRF). The service's own
   * origin is always allowed.
   */
  allowPrivateDownloads: z.boolean().default(false),
  /**
   * The service's request limit for this API key (the account's plan), when known: calls to the service
   * are then paced at this rate, shared by every client of the key in the process, and after a 429 every
   * call of the key waits out its `Retry-After`. Unset: calls go at once and each 429 is retried alone.
   */
  requestsPerSecond: z.number().positive('must be a positive number of requests per second').max(10_000, 'must be at most 10000').optional(),
  /** Calls sent at once after a quiet spell (with `requestsPerSecond`); 1 spaces every call evenly. */
  burst: z.int().min(1, 'must be at least 1').max(10_000, 'must be at most 10000').default(1),
});

/** Addresses a link to another host may not reach unless private downloads are allowed. */
const PRIVATE_ADDRESSES = (() => {
  const list = new BlockList();
  for (const [network, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['224.0.0.0', 3],
  ] as const)
    list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of [
    ['::', 127],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
    ['64:ff9b::', 96],
    ['2001:db8::', 32],
  ] as const)
    list.addSubnet(network, prefix, 'ipv6');
  return list;
})();

/** True for an address in a private, loopback, link-local, shared, multicast or reserved range (IPv4-mapped IPv6 too). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return PRIVATE_ADDRESSES.check(mapped, 'ipv4');
  const family = isIP(address);
  if (family === 0) return false;
  return PRIVATE_ADDRESSES.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The refusal of a link into a private network. */
function privateLinkError(host: string, address: string): Error {
  return Object.assign(
    new Error(
      `${host} resolves to ${address}, a private, loopback or link-local address: links the service returns may not reach the worker's own network (set RESEARCH_ALLOW_PRIVATE_DOWNLOADS=true to allow)`,
    ),
    { code: 'EPRIVATEADDRESS' },
  );
}

/** DNS look-up for links to other hosts: every address is checked at connect time, so a rebinding name cannot slip through. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find(({ address }) => isPrivateAddress(address));
    if (refused) return callback(privateLinkError(hostname, refused.address), '', 0);
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    return first ? callback(null, first.address, first.family) : callback(new Error(`${hostname} has no address`), '', 0);
  });
};
/** How much of an error answer's body is read (for its message): the rest is dropped. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * Reads a body as text up to `maxBytes`: a longer one is destroyed (the connection is not kept) and
 * `tooLong` is thrown, or with `truncate` what was read so far is returned. A body announcing a larger
 * Content-Length is refused before a byte is read.
 */
export async function readCapped(
  body: Dispatcher.ResponseData['body'],
  headers: Record<string, string | string[] | undefined>,
  maxBytes: number,
  tooLong: (bytes: number) => Error,
  truncate = false,
): Promise<string> {
  const announced = Number(headers['content-length']);
  if (!truncate && Number.isFinite(announced) && announced > maxBytes) {
    body.destroy();
    throw tooLong(announced);
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    if (bytes + buffer.length > maxBytes) {
      body.destroy();
      if (truncate) {
        chunks.push(buffer.subarray(0, maxBytes - bytes));
        break;
      }
      throw tooLong(bytes + buffer.length);
    }
    chunks.push(buffer);
    bytes += buffer.length;
  }
  return Buffer.concat(chunks).toString('utf8');
}
/** Options of `new ResearchClient(...)`; `dispatcher` is any undici dispatcher (a `MockAgent` in tests). */
export type ResearchClientOptions = z.input<typeof clientOptions> & { dispatcher?: Dispatcher };

/** Per-call options: a signal to abandon the call (an activity's cancellation) and a timeout override. */
export interface CallOptions {
  signal?: AbortSignal;
  /** A tighter time limit for this call (what is left of an activity attempt, say); the client's own limit still caps it. */
  timeoutMs?: number;
}

/** One call: the request body is checked by `requestSchema` before anything is sent. */
export interface CallSpec<Schema extends z.ZodType> {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  requestSchema?: z.ZodType;
  responseSchema: Schema;
}

/** A successful raw response: status, headers, the still-unread body and where it came from. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
  target: RequestTarget;
}

/** What `send` needs besides the method and path. */
export interface SendInit {
  query?: CallSpec<z.ZodType>['query'];
  body?: unknown;
  options?: CallOptions;
  accept?: string;
  /**
   * A long-lived body (the Answer stream): the time limit covers the wait for the response head, and
   * after that the limit is between chunks (undici's body timeout), not the whole stream.
   */
  stream?: boolean;
}

/** Where calls go: the service's origin, and other hosts the service links to (through the guarded look-up, see allowPrivateDownloads). */
interface Pools {
  service: Dispatcher;
  foreign: Dispatcher;
}

/** HTTP transport of the client: one attempt per call, keep-alive, key in `X-API-Key`, errors classified. */
export class Transport {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly #apiKey: string;
  readonly limits: { maxJsonBytes: number; maxDownloadBytes: number; maxEventBytes: number };
  readonly #origin: string;
  readonly #basePath: string;
  readonly #userAgent: string;
  readonly #ownsDispatcher: boolean;
  /** The caller's dispatcher, or the client's own pools once the first call made them. */
  #pools: Pools | undefined;
  #opening: Promise<Pools> | undefined;
  readonly #allowPrivate: boolean;
  /** Pacing shared by the clients of this key and origin; undefined without `requestsPerSecond`. */
  readonly #limiter: KeyRateLimiter | undefined;
  readonly #rule: RateRule | undefined;

  constructor(options: ResearchClientOptions) {
    const parsed = clientOptions.safeParse(options);
    if (!parsed.success) throw ResearchApiError.invalidRequest({ method: 'NEW', path: 'ResearchClient', error: parsed.error });
    this.baseUrl = parsed.data.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = parsed.data.timeoutMs;
    this.#apiKey = parsed.data.apiKey;
    this.#userAgent = parsed.data.userAgent;
    this.limits = { maxJsonBytes: parsed.data.maxJsonBytes, maxDownloadBytes: parsed.data.maxDownloadBytes, maxEventBytes: parsed.data.maxEventBytes };
    const base = new URL(this.baseUrl);
    this.#origin = base.origin;
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#allowPrivate = parsed.data.allowPrivateDownloads;
    if (options.dispatcher) this.#pools = { service: options.dispatcher, foreign: options.dispatcher };
    if (parsed.data.requestsPerSecond !== undefined) {
      this.#rule = { requestsPerSecond: parsed.data.requestsPerSecond, burst: parsed.data.burst };
      this.#limiter = limiterFor(this.#origin, this.#apiKey);
      this.#limiter.adopt(this.#rule);
    }
  }

  /** The rate calls to the service are paced at (see `requestsPerSecond`), if any. */
  get rateRule(): RateRule | undefined {
    return this.#limiter?.rule;
  }

  /**
   * The client's own connection pools, made at its first call: undici loads then, not when the module
   * is imported, so a backend that imports `research-pipelines/client` only to start runs never loads it.
   */
  #openPools(): Promise<Pools> {
    this.#opening ??= import('undici').then(({ Agent }) => {
      const service = new Agent({ keepAliveTimeout: 30_000, connections: 64, pipelining: 1 });
      const foreign = this.#allowPrivate ? service : new Agent({ keepAliveTimeout: 30_000, connections: 16, connect: { lookup: guardedLookup } });
      return (this.#pools = { service, foreign });
    });
    return this.#opening;
  }

  /** Sends one JSON call and returns its parsed body; `partial` is true for a 206. */
  async json<Schema extends z.ZodType>(spec: CallSpec<Schema>, options: CallOptions = {}): Promise<{ data: z.output<Schema>; partial: boolean }> {
    const body = this.#validate(spec);
    const { response, target, deadline } = await this.#request(spec.method, spec.path, { query: spec.query, body, options });
    let text: string;
    try {
      text = await readCapped(response.body, response.headers, this.limits.maxJsonBytes, (bytes) =>
        ResearchApiError.invalidResponse({
          ...target,
          status: response.statusCode,
          detail: `the body is over the ${this.limits.maxJsonBytes} bytes a JSON answer may have (${bytes} or more): not read further`,
        }),
      );
    } catch (cause) {
      if (cause instanceof ResearchApiError) throw cause;
      throw this.#failure(cause, target, options.signal);
    } finally {
      deadline.clear();
    }
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw ResearchApiError.invalidResponse({
        ...target,
        status: response.statusCode,
        detail: `body is not JSON (starts with ${JSON.stringify(text.slice(0, 60))})`,
      });
    }
    const parsed = spec.responseSchema.safeParse(json);
    if (!parsed.success) throw ResearchApiError.invalidResponse({ ...target, status: response.statusCode, error: parsed.error });
    return { data: parsed.data, partial: response.statusCode === 206 };
  }

  /**
   * Sends one request and returns the response once its status is a success; any other status becomes a
   * `ResearchApiError`. The key goes only to the service's own origin, never to another host. The
   * timeout keeps running until the caller has read (or dropped) the body.
   */
  async send(method: string, pathOrUrl: string, init: SendInit = {}): Promise<RawResponse> {
    const { response, target, deadline } = await this.#request(method, pathOrUrl, init);
    if (init.stream) deadline.stopTimer();
    response.body.once('close', deadline.clear);
    return { status: response.statusCode, headers: response.headers, body: response.body, target };
  }

  /** Classifies a failure while reading a `send` response's body (reset, timeout, abort), key scrubbed. */
  bodyError(cause: unknown, target: RequestTarget): ResearchApiError {
    return cause instanceof ResearchApiError ? cause : ResearchApiError.fromNetworkError(cause, { ...target, secrets: [this.#apiKey] });
  }

  /**
   * A call that failed without a response. When the caller aborted it (an activity being cancelled),
   * the caller's own reason goes back unchanged: that is a cancellation, not a retryable network error.
   */
  #failure(cause: unknown, target: RequestTarget, signal: AbortSignal | undefined): unknown {
    if (signal?.aborted) return signal.reason ?? cause;
    return ResearchApiError.fromNetworkError(cause, { ...target, secrets: [this.#apiKey] });
  }

  async #request(method: string, pathOrUrl: string, init: SendInit): Promise<{ response: Dispatcher.ResponseData; target: RequestTarget; deadline: Deadline }> {
    const { origin, path } = this.#locate(pathOrUrl, init.query);
    const target = { method, path: path.split('?')[0] ?? path };
    const headers: Record<string, string> = { 'user-agent': this.#userAgent, accept: init.accept ?? 'application/json' };
    if (origin === this.#origin) headers['x-api-key'] = this.#apiKey;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const timeoutMs = Math.min(init.options?.timeoutMs ?? this.timeoutMs, this.timeoutMs);
    const deadline = new Deadline(timeoutMs, init.options?.signal);
    let response: Dispatcher.ResponseData;
    const foreign = origin !== this.#origin;
    if (foreign && !this.#allowPrivate) {
      // An address written in the link itself is never looked up: checked here.
      const host = new URL(origin).hostname.replace(/^\[|\]$/g, '');
      if (isPrivateAddress(host)) {
        deadline.clear();
        throw ResearchApiError.fromNetworkError(privateLinkError(host, host), { ...target, secrets: [this.#apiKey] });
      }
    }
    if (this.#limiter && !foreign) await this.#awaitTurn(this.#limiter, target, timeoutMs, deadline, init.options?.signal);
    const pools = this.#pools ?? (await this.#openPools());
    try {
      // The dispatcher directly, with origin and path already split: undici's top-level request() would
      // parse the URL again on every call.
      response = await (foreign ? pools.foreign : pools.service).request({
        origin,
        path,
        method,
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: deadline,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (cause) {
      deadline.clear();
      throw this.#failure(cause, target, init.options?.signal);
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return { response, target, deadline };
    const bodyText = await readCapped(response.body, response.headers, MAX_ERROR_BODY_BYTES, () => new Error('unreachable'), true).catch(() => '');
    deadline.clear();
    const error = ResearchApiError.fromResponse({ ...target, status: response.statusCode, headers: response.headers, bodyText, secrets: [this.#apiKey] });
    if (error.isRateLimited && this.#limiter && !foreign) this.#limiter.hold(error.retryAfterMs ?? 1_000);
    throw error;
  }

  /**
   * Waits for this call's turn at the key's rate (and for a `Retry-After` the service asked for). A call
   * waits at most half its time limit, so the request itself keeps time to finish: a turn further away
   * refuses the call unsent, as a 429 with the wait as its `Retry-After` (nothing reached the service, so
   * nothing was charged).
   */
  async #awaitTurn(limiter: KeyRateLimiter, target: RequestTarget, timeoutMs: number, deadline: Deadline, signal: AbortSignal | undefined): Promise<void> {
    let refusedForMs: number | undefined;
    try {
      refusedForMs = await limiter.acquire(true, timeoutMs / 2, signal);
    } catch (cause) {
      deadline.clear();
      throw this.#failure(cause, target, signal);
    }
    if (refusedForMs === undefined) return;
    deadline.clear();
    throw ResearchApiError.heldByClient({ ...target, path: target.path, waitMs: refusedForMs, requestsPerSecond: limiter.rule?.requestsPerSecond });
  }

  /** The full path of a route, as error messages show it (`/v1/search`). */
  pathOf(path: string): string {
    return this.#basePath + path;
  }

  /** Closes the connection pool when the client made it (a caller's dispatcher is the caller's to close). */
  async close(): Promise<void> {
    if (!this.#ownsDispatcher || !this.#opening) return;
    const { service, foreign } = await this.#opening;
    await service.close();
    if (foreign !== service) await foreign.close();
  }

  /** Origin and path (with query) of a route under the base URL, or of an absolute URL. */
  #locate(pathOrUrl: string, query?: CallSpec<z.ZodType>['query']): { origin: string; path: string } {
    let origin = this.#origin;
    let path = this.#basePath + pathOrUrl;
    if (/^https?:\/\//.test(pathOrUrl)) {
      const url = new URL(pathOrUrl);
      origin = url.origin;
      path = url.pathname + url.search;
    }
    const params = Object.entries(query ?? {}).filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined);
    if (params.length > 0) {
      const search = new URLSearchParams(params.map(([name, value]): [string, string] => [name, String(value)]));
      path += (path.includes('?') ? '&' : '?') + search.toString();
    }
    return { origin, path };
  }

  #validate(spec: CallSpec<z.ZodType>): unknown {
    if (!spec.requestSchema) return spec.body;
    const parsed = spec.requestSchema.safeParse(spec.body);
    if (!parsed.success) throw ResearchApiError.invalidRequest({ method: spec.method, path: this.pathOf(spec.path), error: parsed.error });
    return parsed.data;
  }

  /** Never shows the key. */
  toString(): string {
    return `Transport(${this.baseUrl})`;
  }

  [inspect.custom](): string {
    return this.toString();
  }

  toJSON(): Record<string, unknown> {
    return { baseUrl: this.baseUrl, timeoutMs: this.timeoutMs };
  }
}
