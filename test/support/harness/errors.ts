import { applicationFailureType, failureToError, type ProtoFailure } from './payloads';

/** How a workflow execution ended without a result. */
export type WorkflowFailureStatus = 'failed' | 'cancelled' | 'terminated';

/**
 * `result()` of a workflow that failed, was cancelled or terminated (both environments throw it).
 * `message` is the failure's own message (not a generic wrapper), `type` the first ApplicationFailure
 * type down its cause chain, `cause` the failure as an SDK error.
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

  /** Builds the error from the failure the workflow closed with. */
  static fromFailure(workflowId: string, status: WorkflowFailureStatus, failure: ProtoFailure): WorkflowFailedError {
    return new WorkflowFailedError(
      workflowId,
      status,
      failure.message || `Workflow execution ${status}`,
      applicationFailureType(failure),
      failureToError(failure),
    );
  }
}

/**
 * A workflow activation failed (non-determinism, a non-Temporal error thrown by workflow code). A
 * real worker retries such a task forever; the harness stops and reports it instead.
 */
export class WorkflowTaskFailedError extends Error {
  override readonly name = 'WorkflowTaskFailedError';

  constructor(
    readonly workflowId: string,
    readonly runId: string,
    readonly failure: ProtoFailure,
  ) {
    super(
      `Workflow task of ${workflowId} (run ${runId}) failed: ${failure.message ?? 'unknown error'}. ` +
        `A real worker would retry this task until the code is fixed.` +
        (failure.stackTrace ? `\n${failure.stackTrace}` : ''),
    );
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

  /** Builds the error from the update's rejection failure. */
  static fromFailure(updateName: string, failure: ProtoFailure): WorkflowUpdateFailedError {
    return new WorkflowUpdateFailedError(
      updateName,
      failure.message || `Update ${updateName} failed`,
      applicationFailureType(failure),
      failureToError(failure),
    );
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

/** `waitUntil` reached its timeout (in environment time) before its predicate held. */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
}

/**
 * The harness cannot make progress: nothing is running and no timer is pending while a caller waits,
 * or real-time work (an activity) has not finished within the stall timeout.
 */
export class HarnessStalledError extends Error {
  override readonly name = 'HarnessStalledError';
}
