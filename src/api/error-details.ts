/** Reading what a failed response or a transport error says: headers, error bodies, cause chains. */
import { isRecord } from '../shared/guards';

/** Response headers as undici's `request()` (plain object) or `fetch()` (`Headers`) hands them over. */
export type ResponseHeadersLike = Headers | Record<string, string | string[] | undefined>;

const MAX_SERVICE_TEXT = 500;
const REQUEST_ID_HEADERS = ['x-request-id', 'x-amzn-requestid', 'request-id'];

/** Milliseconds to wait from a `Retry-After` value (delta-seconds or HTTP-date); undefined for junk or the past. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  const trimmed = value?.trim();
  if (!trimmed) return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // Only a real date, not a bare number Date.parse would also accept (e.g. "-5").
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at) || at < now) return undefined;
  return at - now;
}

// Guarded: code that reads error details may run where fetch's Headers does not exist.
const isFetchHeaders = (headers: ResponseHeadersLike): headers is Headers => typeof Headers !== 'undefined' && headers instanceof Headers;

/** One header's first value, from undici's plain object or a fetch `Headers`. */
export function header(headers: ResponseHeadersLike | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  if (isFetchHeaders(headers)) return headers.get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(entry) ? entry[0] : entry;
}

/** The service's request id, from the first request-id header present. */
export function findRequestId(headers: ResponseHeadersLike | undefined): string | undefined {
  return REQUEST_ID_HEADERS.map((name) => header(headers, name)).find(Boolean);
}

/** What an error body says. */
export interface ErrorBody {
  code?: string;
  serviceMessage?: string;
  requestId?: string;
}

/** Reads the service's two documented error bodies, tolerating `{detail}`, `{message}`, text and HTML. */
export function readErrorBody(bodyText: string): ErrorBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    return { serviceMessage: plainText(bodyText) };
  }
  if (typeof parsed === 'string') return { serviceMessage: plainText(parsed) };
  if (!isRecord(parsed)) return { serviceMessage: plainText(bodyText) };
  const requestId = text(parsed.request_id) ?? text(parsed.requestId) ?? text(parsed.tx_id);
  const error = parsed.error;
  const message = text(parsed.message) ?? text(parsed.Message);
  if (typeof error === 'string' && message && parsed.success === undefined) {
    return { code: error, serviceMessage: clip(message), requestId };
  }
  const nested = isRecord(error) ? text(error.message) : undefined;
  const detail = Array.isArray(parsed.detail)
    ? parsed.detail
        .map((item) => (isRecord(item) ? text(item.msg) : text(item)))
        .filter(Boolean)
        .join('; ')
    : text(parsed.detail);
  const serviceMessage = text(error) ?? nested ?? message ?? detail;
  return { code: isRecord(error) ? text(error.code) : undefined, serviceMessage: serviceMessage && clip(serviceMessage), requestId };
}

function plainText(body: string): string | undefined {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(body)?.[1];
  const stripped = (title ?? body.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
  return stripped ? clip(stripped) : undefined;
}

function clip(value: string): string {
  return value.length > MAX_SERVICE_TEXT ? `${value.slice(0, MAX_SERVICE_TEXT)}…` : value;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** Finds the most specific name/code/message along a cause chain (fetch wraps undici errors in `cause`). */
export function describeCause(cause: unknown): { name: string; code?: string; message: string; stack?: string } {
  let current: unknown = cause;
  let name = 'Error';
  let code: string | undefined;
  let message = '';
  let stack: string | undefined;
  for (let depth = 0; depth < 5 && isRecordLike(current); depth++) {
    if (typeof current.name === 'string' && current.name !== 'Error' && current.name !== 'TypeError') name = current.name;
    if (typeof current.code === 'string') code = current.code;
    if (typeof current.message === 'string' && current.message) message = current.message;
    if (typeof current.stack === 'string') stack = current.stack;
    current = current.cause;
  }
  if (!message) message = typeof cause === 'string' ? cause : 'unknown error';
  return { name, code, message, stack };
}

function isRecordLike(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
