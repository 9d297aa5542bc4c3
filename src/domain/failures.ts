/**
 * `ApplicationFailure` type strings thrown by activities and workflows. Plain constants so workflow code,
 * activities, the CLI and tests compare the same strings (never class names).
 */
export const FailureType = {
  /** 400: the service refused the request's parameters; retrying will not help. */
  InvalidRequest: 'ResearchInvalidRequest',
  /** 401: the API key is missing or wrong. */
  Unauthorized: 'ResearchUnauthorized',
  /** 403: the key lacks a permission (e.g. `inference`), or the resource is read-only. */
  Forbidden: 'ResearchForbidden',
  /** 404: the task, batch or workflow does not exist. */
  NotFound: 'ResearchNotFound',
  /** 402: credits exhausted; an operator must top up, then send `resumeSignal`. */
  CreditsExhausted: 'ResearchCreditsExhausted',
  /** 429: rate limited; retried after the service's `Retry-After`. */
  RateLimited: 'ResearchRateLimited',
  /** 5xx, timeouts and network failures of calls that are safe to repeat. */
  ServiceUnavailable: 'ResearchServiceUnavailable',
  /** A success response that does not match its schema. */
  InvalidResponse: 'ResearchInvalidResponse',
  /** The service refused an action in the task's current state (late instruction, cancel after completion). */
  Refused: 'ResearchActionRefused',
  /**
   * A paid Answer, Search or Contents call was sent but its answer was lost (a time-out, a dropped
   * connection): it may have been charged. The run counts the item's reserved price as spent and
   * retries it through the budget, instead of paying again unseen.
   */
  PossiblyCharged: 'ResearchPossiblyCharged',
  /** A paid create was sent but no answer came back: reconcile before any retry. */
  CreateOutcomeUnknown: 'ResearchCreateOutcomeUnknown',
  /** The research task itself ended in `failed`. */
  TaskFailed: 'ResearchTaskFailed',
  /** A request the workflow refuses before calling the service (e.g. batch limits). */
  InvalidInput: 'ResearchInvalidInput',
  /** A pipeline run ended in failure (an item failed with `on_item_failure: fail_run`, or its input became unreadable); its outputs were written. */
  PipelineRunFailed: 'PipelineRunFailed',
  /** A run notification or SQL sink the worker cannot serve as configured (no NOTIFY_SECRET, a missing url_env): no retry helps. */
  DeliveryNotConfigured: 'DeliveryNotConfigured',
} as const;

/** One of the failure type strings. */
export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/** Failure types that retrying cannot fix. */
export const NON_RETRYABLE_FAILURE_TYPES: readonly FailureType[] = [
  FailureType.InvalidRequest,
  FailureType.Unauthorized,
  FailureType.Forbidden,
  FailureType.NotFound,
  FailureType.CreditsExhausted,
  FailureType.InvalidResponse,
  FailureType.Refused,
  FailureType.CreateOutcomeUnknown,
  FailureType.PossiblyCharged,
  FailureType.InvalidInput,
];
