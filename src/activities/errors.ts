import { ApplicationFailure } from '@temporalio/activity';
import { ResearchApiError } from '../api';
import { FailureType } from '../domain/failures';
import { throwIfCancelled } from './context';
import { checkKey } from './store';

/** How an activity wants statuses read beyond the defaults. */
export interface FailureMappingOptions {
  /**
   * Statuses that mean "not in this state" for the call at hand (a late instruction, a cancel after
   * completion): they become `Refused` with the service's reason instead of `InvalidRequest`.
   */
  refusedStatuses?: readonly number[];
}

/** Statuses that refuse a state change; the spec does not name the status, so both common ones count. */
export const STATE_REFUSAL_STATUSES: readonly number[] = [400, 409, 422];

interface Classification {
  type: FailureType;
  nonRetryable: boolean;
}

const BY_STATUS: Readonly<Record<number, Classification>> = {
  400: { type: FailureType.InvalidRequest, nonRetryable: true },
  401: { type: FailureType.Unauthorized, nonRetryable: true },
  402: { type: FailureType.CreditsExhausted, nonRetryable: true },
  403: { type: FailureType.Forbidden, nonRetryable: true },
  404: { type: FailureType.NotFound, nonRetryable: true },
  429: { type: FailureType.RateLimited, nonRetryable: false },
};

const UNAVAILABLE: Classification = { type: FailureType.ServiceUnavailable, nonRetryable: false };
const REFUSED: Classification = { type: FailureType.Refused, nonRetryable: true };

/** The failure type and retryability of a research-service error (the one status-to-type table). */
export function classifyApiError(error: ResearchApiError, options: FailureMappingOptions = {}): Classification {
  switch (error.kind) {
    case 'invalid_request':
      return { type: FailureType.InvalidRequest, nonRetryable: true };
    case 'invalid_response':
      return { type: FailureType.InvalidResponse, nonRetryable: true };
    case 'network':
    case 'timeout':
      return UNAVAILABLE;
    case 'http':
      break;
  }
  const status = error.status ?? 0;
  if (options.refusedStatuses?.includes(status)) return REFUSED;
  const known = BY_STATUS[status];
  if (known) return known;
  if (status === 408 || status >= 500) return UNAVAILABLE;
  // 409 and any other 4xx: the service understood the request and refused it.
  return REFUSED;
}

/** Builds the `ApplicationFailure` for a research-service error; `nextRetryDelay` honours `Retry-After`. */
export function failureFromApiError(error: ResearchApiError, classification: Classification = classifyApiError(error)): ApplicationFailure {
  const retryAfter = !classification.nonRetryable ? error.retryAfterMs : undefined;
  return ApplicationFailure.create({
    type: classification.type,
    // ResearchApiError messages hold method, path, status and the (redacted) service text: never the key.
    message: error.message,
    nonRetryable: classification.nonRetryable,
    ...(retryAfter !== undefined ? { nextRetryDelay: retryAfter } : {}),
    details: [error.toJSON()],
  });
}

/**
 * Rethrows any error as what Temporal should see: the activity's cancellation stays a cancellation, a
 * `ResearchApiError` becomes a typed `ApplicationFailure`, anything else passes unchanged.
 */
export function rethrowAsFailure(error: unknown, options: FailureMappingOptions = {}): never {
  throwIfCancelled();
  if (error instanceof ResearchApiError) throw failureFromApiError(error, classifyApiError(error, options));
  throw error;
}

/** Runs a service call and rethrows its failure through `rethrowAsFailure`. */
export async function callService<T>(call: () => Promise<T>, options: FailureMappingOptions = {}): Promise<T> {
  try {
    return await call();
  } catch (error) {
    return rethrowAsFailure(error, options);
  }
}

/** A failure for input the activity refuses before calling the service. */
export function invalidInput(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FailureType.InvalidInput, message, nonRetryable: true });
}

/** The store prefix an activity was given, without a trailing slash; a prefix the store would refuse is `InvalidInput`. */
export function checkedKeyPrefix(keyPrefix: string): string {
  const prefix = keyPrefix.replace(/\/+$/, '');
  try {
    checkKey(prefix);
  } catch (error) {
    throw invalidInput(`keyPrefix: ${(error as Error).message}`);
  }
  return prefix;
}

/** A non-retryable `Refused` failure with the service's reason. */
export function refused(message: string, details?: Record<string, unknown>): ApplicationFailure {
  return ApplicationFailure.create({ type: FailureType.Refused, message, nonRetryable: true, ...(details ? { details: [details] } : {}) });
}
