import { setTimeout as sleep } from 'node:timers/promises';
import { ResearchApiError } from './errors';

/** How `withRetries` backs off. */
export interface RetryOptions {
  /** Attempts in all, the first included. */
  attempts?: number;
  initialDelayMs?: number;
  maxDelayMs?: number;
  signal?: AbortSignal;
  /** Called before each wait, e.g. to print "retrying in 2 s". */
  onRetry?: (error: ResearchApiError, delayMs: number, attempt: number) => void;
}

/**
 * Retries a call while it fails with a retryable `ResearchApiError`, waiting `Retry-After` when the
 * service gives one, else exponential backoff. For command-line use: in workflows Temporal retries.
 * Never use it around task creation, which is paid and has no idempotency key.
 */
export async function withRetries<T>(call: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 3;
  const initialDelayMs = options.initialDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 10_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof ResearchApiError) || !error.retryable || attempt >= attempts) throw error;
      const delayMs = Math.min(maxDelayMs, error.retryAfterMs ?? initialDelayMs * 2 ** (attempt - 1));
      options.onRetry?.(error, delayMs, attempt);
      await sleep(delayMs, undefined, { signal: options.signal });
    }
  }
}
