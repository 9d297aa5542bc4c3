import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The headers the service sends with a completion webhook. */
export const webhookHeaderNames = {
  signature: 'X-Webhook-Signature',
  timestamp: 'X-Webhook-Timestamp',
} as const;

/** The raw request body exactly as received (a `Buffer` is a `Uint8Array`); never re-serialised JSON. */
export type WebhookBody = string | Uint8Array;

/** A header value as Node hands it over: absent, one value, or repeated values. */
export type WebhookHeaderValue = string | readonly string[] | null | undefined;

/** Why a webhook signature was rejected. */
export type WebhookRejectionReason = 'missing' | 'malformed_signature' | 'malformed_timestamp' | 'stale_timestamp' | 'mismatch';

/** The outcome of checking a webhook signature. */
export type WebhookVerification = { ok: true } | { ok: false; reason: WebhookRejectionReason };

/** A signature and timestamp for a body, with the headers that carry them. */
export interface SignedWebhook {
  signature: string;
  timestamp: string;
  headers: { 'X-Webhook-Signature': string; 'X-Webhook-Timestamp': string };
}

/** Inputs to a signature check; `now` is milliseconds since the epoch (as `Clock.now()` returns). */
export interface VerifyWebhookInput {
  secret: string | null | undefined;
  signature: WebhookHeaderValue;
  timestamp: WebhookHeaderValue;
  body: WebhookBody | null | undefined;
  toleranceSeconds?: number;
  now?: number;
}

const SIGNATURE_PATTERN = /^sha256=([0-9a-fA-F]{64})$/;
const TIMESTAMP_PATTERN = /^\d{1,12}$/;

const reasonText: Record<WebhookRejectionReason, string> = {
  missing: 'the secret, signature, timestamp or body is missing',
  malformed_signature: 'the signature is not `sha256=` followed by 64 hex characters',
  malformed_timestamp: 'the timestamp is not a Unix time in seconds',
  stale_timestamp: 'the timestamp is outside the allowed tolerance',
  mismatch: 'the signature does not match the body',
};

/** A rejected webhook; the message states the reason and never includes the secret or signature. */
export class WebhookSignatureError extends Error {
  constructor(readonly reason: WebhookRejectionReason) {
    super(`webhook signature rejected: ${reasonText[reason]}`);
  }
}
Object.defineProperty(WebhookSignatureError.prototype, 'name', { value: 'WebhookSignatureError' });

/** Signs a body the way the service does: `sha256=` + hex HMAC-SHA256(secret, `<timestamp>.<raw body>`). */
export function signWebhook(input: { secret: string; body: WebhookBody; timestamp?: number | string }): SignedWebhook {
  const timestamp = String(input.timestamp ?? Math.floor(Date.now() / 1000));
  if (!TIMESTAMP_PATTERN.test(timestamp)) throw new TypeError('webhook timestamp must be a whole number of Unix seconds');
  const signature = `sha256=${hmac(input.secret, timestamp, input.body).toString('hex')}`;
  return { signature, timestamp, headers: { 'X-Webhook-Signature': signature, 'X-Webhook-Timestamp': timestamp } };
}

/**
 * Checks a webhook's signature over its raw body in constant time, and that its timestamp is within
 * `toleranceSeconds` of now in either direction (a replayed or pre-dated request is rejected).
 */
export function verifyWebhookSignature(input: VerifyWebhookInput): WebhookVerification {
  const toleranceSeconds = input.toleranceSeconds ?? 300;
  if (!(toleranceSeconds >= 0)) throw new RangeError('webhook toleranceSeconds must be zero or more');
  const signature = single(input.signature);
  const timestamp = single(input.timestamp);
  if (!input.secret || signature === '' || timestamp === '' || input.body === null || input.body === undefined) {
    return { ok: false, reason: 'missing' };
  }
  // The pattern fixes the length, so comparing lengths below reveals nothing about the expected value.
  const hex = signature === undefined ? undefined : SIGNATURE_PATTERN.exec(signature)?.[1];
  if (!hex) return { ok: false, reason: 'malformed_signature' };
  if (timestamp === undefined || !TIMESTAMP_PATTERN.test(timestamp)) return { ok: false, reason: 'malformed_timestamp' };
  const expected = hmac(input.secret, timestamp, input.body);
  const provided = Buffer.from(hex, 'hex');
  if (provided.length !== expected.length || !timingSafeEqual(provided, expected)) return { ok: false, reason: 'mismatch' };
  const nowSeconds = Math.floor((input.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return { ok: false, reason: 'stale_timestamp' };
  return { ok: true };
}

/** Like `verifyWebhookSignature`, but throws `WebhookSignatureError` on rejection. */
export function assertWebhookSignature(input: VerifyWebhookInput): void {
  const result = verifyWebhookSignature(input);
  if (!result.ok) throw new WebhookSignatureError(result.reason);
}

/** A fresh secret in the service's format: 64 hex characters (32 random bytes). */
export function generateWebhookSecret(): string {
  return randomBytes(32).toString('hex');
}

// The key is the secret's text as UTF-8, not its hex-decoded bytes: the documented scheme is HMAC(secret, ...).
function hmac(secret: string, timestamp: string, body: WebhookBody): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
}

// '' stands for absent; undefined for a repeated header, which is ambiguous and so malformed.
function single(value: WebhookHeaderValue): string | undefined {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (value.length === 0) return '';
  return value.length === 1 ? value[0] : undefined;
}

/**
 * The per-workflow token of an intake webhook URL: base64url HMAC-SHA256(intake key, workflow id). Only
 * holders of the intake key (the worker that builds the URL, the intake that checks it) can make one, so
 * a delivery can only reach the workflow its URL names.
 */
export function webhookRouteToken(intakeKey: string, workflowId: string): string {
  return createHmac('sha256', intakeKey).update(workflowId).digest('base64url');
}

/** Whether `token` is the route token of `workflowId`, compared in constant time. */
export function webhookRouteTokenMatches(intakeKey: string, workflowId: string, token: string): boolean {
  const expected = createHmac('sha256', intakeKey).update(workflowId).digest();
  const provided = Buffer.from(token, 'base64url');
  return provided.length === expected.length && timingSafeEqual(provided, expected);
}
