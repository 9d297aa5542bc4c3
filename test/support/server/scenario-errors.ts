/** How a workflow execution ended without a result. */
export type WorkflowFailureStatus = 'failed' | 'cancelled' | 'terminated';

/**
 * `result()` of a workflow that failed, was cancelled or terminated. `message` is the failure's own
 * message (not the client's generic wrapper), `type` the first ApplicationFailure type down its cause
 * chain, `cause` the failure as an SDK error.
 */
export class WorkflowFailedError extends Error {
  override readonly name = 'WorkflowFailedError';

  constructor(
    readonly workflowId: string,
    readonly status: WorkflowFailureStatus,
    message: string,
    readonly type: string | undefined,
    override readonly cause: Error | undefined,
  ) {
    super(message);
  }
}

/** An update was rejected by its validator or its handler failed; `message` is the failure's. */
export class WorkflowUpdateFailedError extends Error {
  override readonly name = 'WorkflowUpdateFailedError';

  constructor(
    readonly updateName: string,
    message: string,
    readonly type: string | undefined,
    override readonly cause: Error | undefined,
  ) {
    super(message);
  }
}

/** A query handler threw, or no handler exists for the query. */
export class WorkflowQueryFailedError extends Error {
  override readonly name = 'WorkflowQueryFailedError';
}

/** A signal, update or cancellation was sent to a workflow that is not running. */
export class WorkflowNotRunningError extends Error {
  override readonly name = 'WorkflowNotRunningError';
}

/** `waitUntil` reached its timeout before its predicate held. */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
}
