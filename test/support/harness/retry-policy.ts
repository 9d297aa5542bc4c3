import { optionalTsToMs } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import { RetryState, type RetryStateValue } from './core-failures';
import type { ProtoFailure } from './payloads';

/** The server's answer after a failed activity attempt: run again after a delay, or give up. */
export type RetryDecision =
  | { readonly retry: true; readonly delayMs: number }
  | { readonly retry: false; readonly retryState: RetryStateValue };

// The server's defaults for a policy field left unset (maximumInterval defaults to 100x initial).
const DEFAULT_INITIAL_INTERVAL_MS = 1_000;
const DEFAULT_BACKOFF_COEFFICIENT = 2;
const DEFAULT_MAXIMUM_INTERVAL_FACTOR = 100;

/**
 * Decides whether the server would retry an activity whose attempt number `attempt` (1-based) just
 * failed with `failure`, and after how long. Mirrors the server: `nonRetryable` failures and types
 * listed in `nonRetryableErrorTypes` stop at once, `maximumAttempts` (0 = unlimited) caps attempts,
 * an ApplicationFailure's `nextRetryDelay` replaces the computed backoff, and otherwise the delay is
 * initialInterval * backoffCoefficient^(attempt-1), capped at maximumInterval.
 */
export function decideRetry(
  policy: temporal.api.common.v1.IRetryPolicy | null | undefined,
  attempt: number,
  failure: ProtoFailure,
): RetryDecision {
  const application = failure.applicationFailureInfo;
  if (application?.nonRetryable) return { retry: false, retryState: RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE };
  if (application?.type && policy?.nonRetryableErrorTypes?.includes(application.type)) {
    return { retry: false, retryState: RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE };
  }
  const maximumAttempts = policy?.maximumAttempts ?? 0;
  if (maximumAttempts > 0 && attempt >= maximumAttempts) {
    return { retry: false, retryState: RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED };
  }
  const nextRetryDelayMs = optionalTsToMs(application?.nextRetryDelay);
  if (nextRetryDelayMs !== undefined) return { retry: true, delayMs: nextRetryDelayMs };

  const initialMs = optionalTsToMs(policy?.initialInterval) || DEFAULT_INITIAL_INTERVAL_MS;
  const coefficient = policy?.backoffCoefficient || DEFAULT_BACKOFF_COEFFICIENT;
  const maximumMs = optionalTsToMs(policy?.maximumInterval) || initialMs * DEFAULT_MAXIMUM_INTERVAL_FACTOR;
  return { retry: true, delayMs: Math.min(initialMs * coefficient ** (attempt - 1), maximumMs) };
}
