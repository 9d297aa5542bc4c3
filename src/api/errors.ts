import { STATUS_CODES } from 'node:http';
import { describeCause, findRequestId, header, parseRetryAfter, readErrorBody, type ResponseHeadersLike } from './error-details';

export { parseRetryAfter };
export type { ResponseHeadersLike };

/** What went wrong: the service answered with an error, the call never completed, or a body was invalid. */
export type ResearchApiErrorKind = 'http' | 'network' | 'timeout' | 'invalid_response' | 'invalid_request';

/** Statuses worth retrying (the service's public client treats exactly these as transient). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** One failed validation rule: the dotted field path and the rule's message. */
export interface ResearchApiIssue {
  path: string;
  message: string;
}

/** The part of a zod error we read, so callers can pass `ZodError` without this module importing zod. */
export interface ValidationErrorLike {
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>;
}

/** Where a failed call went; the query string is dropped because it can carry asset tokens. */
export interface RequestTarget {
  method: string;
  path: string;
}

interface ErrorFields extends RequestTarget {
  kind: ResearchApiErrorKind;
  message: string;
  retryable: boolean;
  status?: number;
  code?: string;
  serviceMessage?: string;
  requestId?: string;
  retryAfterMs?: number;
  issues?: ResearchApiIssue[];
  causeCode?: string;
  cause?: Error;
}

/** The one error type for research-service failures; it never holds request headers, so never the API key. */
export class ResearchApiError extends Error {
  // `declare` keeps absent fields off the instance, so logs and `util.inspect` show only what is known.
  declare readonly kind: ResearchApiErrorKind;
  declare readonly method: string;
  declare readonly path: string;
  declare readonly retryable: boolean;
  declare readonly status?: number;
  declare readonly code?: string;
  declare readonly serviceMessage?: string;
  declare readonly requestId?: string;
  declare readonly retryAfterMs?: number;
  declare readonly issues?: ResearchApiIssue[];
  /** The transport's error code (e.g. `UND_ERR_CONNECT_TIMEOUT`, `ECONNRESET`) for network failures. */
  declare readonly causeCode?: string;

  private constructor(fields: ErrorFields) {
    super(fields.message, fields.cause ? { cause: fields.cause } : undefined);
    const { message: _message, cause: _cause, ...rest } = fields;
    Object.assign(this, Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)));
  }

  /** Classifies a non-success HTTP response; `secrets` are scrubbed from any service text first. */
  static fromResponse(
    input: RequestTarget & {
      status: number;
      headers?: ResponseHeadersLike;
      bodyText?: string;
      secrets?: readonly string[];
      now?: number;
    },
  ): ResearchApiError {
    const target = cleanTarget(input);
    const body = readErrorBody(redact(input.bodyText ?? '', input.secrets ?? []));
    const detail = [body.code, body.serviceMessage].filter(Boolean).join(': ') || STATUS_CODES[input.status] || 'no details given';
    return new ResearchApiError({
      ...target,
      kind: 'http',
      status: input.status,
      message: `${target.method} ${target.path} failed with ${input.status}: ${detail}`,
      retryable: RETRYABLE_STATUSES.has(input.status),
      code: body.code,
      serviceMessage: body.serviceMessage,
      requestId: findRequestId(input.headers) ?? body.requestId,
      retryAfterMs: parseRetryAfter(header(input.headers, 'retry-after'), input.now ?? Date.now()),
    });
  }

  /** Classifies a call that got no response (connection failure, reset, timeout); always retryable. */
  static fromNetworkError(cause: unknown, target: RequestTarget & { secrets?: readonly string[] }): ResearchApiError {
    const clean = cleanTarget(target);
    const { name, code, message, stack } = describeCause(cause);
    const secrets = target.secrets ?? [];
    const safeMessage = redact(message, secrets);
    const timedOut = name === 'TimeoutError' || /TIMEOUT/i.test(code ?? '');
    // Keep a copy of the cause, not the cause itself: transport errors can reference request options.
    const safeCause = Object.assign(new Error(safeMessage), { name, ...(code ? { code } : {}) });
    if (stack) safeCause.stack = redact(stack, secrets);
    return new ResearchApiError({
      ...clean,
      kind: timedOut ? 'timeout' : 'network',
      message: `${clean.method} ${clean.path} ${timedOut ? 'timed out' : 'failed with a network error'}: ${safeMessage}`,
      retryable: true,
      causeCode: code,
      cause: safeCause,
    });
  }

  /** A response whose body (or stream event) does not match its schema; retrying will not fix it. */
  static invalidResponse(
    input: RequestTarget & {
      status?: number;
      requestId?: string;
      error?: ValidationErrorLike;
      detail?: string;
    },
  ): ResearchApiError {
    const target = cleanTarget(input);
    const issues = input.error ? issuesFrom(input.error) : undefined;
    const detail = [input.detail, issues && formatIssues(issues)].filter(Boolean).join(': ');
    return new ResearchApiError({
      ...target,
      kind: 'invalid_response',
      status: input.status,
      requestId: input.requestId,
      message: `${target.method} ${target.path} returned an invalid response: ${detail || 'unknown problem'}`,
      retryable: false,
      issues,
    });
  }

  /**
   * A call the client's own rate limit held back (see the client's `requestsPerSecond`): its turn was
   * further away than it could wait. Nothing reached the service; like the service's 429, it is retried
   * after `retryAfterMs`.
   */
  static heldByClient(input: RequestTarget & { waitMs: number; requestsPerSecond?: number }): ResearchApiError {
    const target = cleanTarget(input);
    const retryAfterMs = Math.max(1, Math.ceil(input.waitMs));
    const rate = input.requestsPerSecond !== undefined ? ` of ${input.requestsPerSecond} requests/s` : '';
    return new ResearchApiError({
      ...target,
      kind: 'http',
      status: 429,
      code: 'client_rate_limit',
      message: `${target.method} ${target.path} was not sent: the client's rate limit${rate} for this API key has no turn for it within the call's time limit (next turn in ${retryAfterMs} ms)`,
      retryable: true,
      retryAfterMs,
    });
  }

  /** A request rejected before sending because it fails its schema; nothing reached the service. */
  static invalidRequest(input: RequestTarget & { error: ValidationErrorLike }): ResearchApiError {
    const target = cleanTarget(input);
    const issues = issuesFrom(input.error);
    return new ResearchApiError({
      ...target,
      kind: 'invalid_request',
      message: `${target.method} ${target.path} request is invalid: ${formatIssues(issues)}`,
      retryable: false,
      issues,
    });
  }

  /** 402: the account has no credits left; only a top-up helps. */
  get isCreditsExhausted(): boolean {
    return this.status === 402;
  }

  /** 429: the service asks the caller to slow down (see `retryAfterMs`). */
  get isRateLimited(): boolean {
    return this.status === 429;
  }

  /** 404: the task, batch or workflow does not exist (or no longer does). */
  get isNotFound(): boolean {
    return this.status === 404;
  }

  /** A plain, secret-free object for logs and Temporal failure details. */
  toJSON(): Record<string, unknown> {
    const { kind, status, code, serviceMessage, requestId, retryable, retryAfterMs, issues, causeCode, method, path } = this;
    const all = {
      name: this.name,
      message: this.message,
      kind,
      status,
      code,
      serviceMessage,
      requestId,
      retryable,
      retryAfterMs,
      issues,
      causeCode,
      method,
      path,
    };
    return Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined));
  }
}

// On the prototype so it is not an own property cluttering `util.inspect` output.
Object.defineProperty(ResearchApiError.prototype, 'name', { value: 'ResearchApiError' });

/** Replaces every occurrence of each non-empty secret in `text` with `[REDACTED]`. */
export function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((scrubbed, secret) => (secret ? scrubbed.split(secret).join('[REDACTED]') : scrubbed), text);
}

/** Turns a zod error into `{path, message}` issues with dotted paths (`tasks[0].query`). */
export function issuesFrom(error: ValidationErrorLike): ResearchApiIssue[] {
  return error.issues.map((issue) => ({
    path: formatIssuePath(issue.path) || '(root)',
    message: issue.message,
  }));
}

/** `tasks[0].query` from a zod issue path ('' for the root); the client and the emulator both write paths so. */
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((joined, key) => {
    if (typeof key === 'number') return `${joined}[${key}]`;
    return joined ? `${joined}.${String(key)}` : String(key);
  }, '');
}

function formatIssues(issues: ResearchApiIssue[]): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
}

function cleanTarget(target: RequestTarget): RequestTarget {
  return { method: target.method.toUpperCase(), path: target.path.split('?')[0] ?? target.path };
}
