import { ApplicationFailure } from '@temporalio/activity';
import { ResearchApiError } from '../api';
import { FailureType } from '../domain/failures';
import { throwIfCancelled } from './context';
import { failureFromApiError } from './errors';

/**
 * Transport codes raised before a request leaves the machine (no connection was made), so the service
 * cannot have created anything.
 */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Statuses with which the service says it did not process the request (timeout before reading, rate limit, overload). */
const NOT_PROCESSED_STATUSES: ReadonlySet<number> = new Set([408, 429, 503]);

/** What a failed paid create means for the money: nothing was created, or nobody knows. */
export type CreateOutcome = 'not_created' | 'unknown';

/**
 * Reads a failed create. Network errors after connecting, timeouts, 500/502/504 and a 2xx with a body we
 * cannot read may all hide a task the service did create.
 */
export function createOutcomeOf(error: ResearchApiError): CreateOutcome {
  switch (error.kind) {
    case 'invalid_request':
      return 'not_created';
    case 'invalid_response':
      return 'unknown';
    case 'network':
    case 'timeout':
      return error.causeCode !== undefined && NOT_SENT_CODES.has(error.causeCode) ? 'not_created' : 'unknown';
    case 'http': {
      const status = error.status ?? 0;
      if (NOT_PROCESSED_STATUSES.has(status)) return 'not_created';
      return status >= 500 ? 'unknown' : 'not_created';
    }
  }
}

/**
 * Rethrows a failed paid create. An ambiguous outcome becomes a non-retryable `CreateOutcomeUnknown`, so
 * Temporal never repeats the POST blindly: the workflow reconciles through `findResearchTask` first.
 */
export function rethrowCreateFailure(error: unknown, what: string): never {
  throwIfCancelled();
  if (!(error instanceof ResearchApiError)) throw error;
  if (createOutcomeOf(error) === 'not_created') throw failureFromApiError(error);
  throw ApplicationFailure.create({
    type: FailureType.CreateOutcomeUnknown,
    message: `${what}: the request may have been processed (${error.message}); look the task up by its request key before creating again`,
    nonRetryable: true,
    details: [error.toJSON()],
  });
}
