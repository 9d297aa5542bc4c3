import { temporal } from '@temporalio/proto';
import type { ProtoFailure } from './payloads';

// Failures Core builds around results before handing them to workflow code. Their messages and
// info fields match sdk-core's activity and child workflow state machines, so workflow code sees
// the same ActivityFailure / ChildWorkflowFailure shapes as with a real worker.

const { RetryState } = temporal.api.enums.v1;

/** A retry state as the server reports it on activity and child workflow failures. */
export type RetryStateValue = temporal.api.enums.v1.RetryState;
export { RetryState };

/** Identifies the activity a Core failure is about. */
export interface ActivityRef {
  readonly activityType: string;
  readonly activityId: string;
}

/** Identifies the child workflow a Core failure is about. */
export interface ChildRef {
  readonly namespace: string;
  readonly workflowType: string;
  readonly workflowId: string;
  readonly runId: string;
}

const cancelledCause: ProtoFailure = { canceledFailureInfo: {} };

function activityInfo(activity: ActivityRef, retryState: RetryStateValue): ProtoFailure['activityFailureInfo'] {
  return {
    activityType: { name: activity.activityType },
    activityId: activity.activityId,
    identity: 'workflow-harness',
    retryState,
  };
}

function childInfo(child: ChildRef, retryState: RetryStateValue): ProtoFailure['childWorkflowExecutionFailureInfo'] {
  return {
    namespace: child.namespace,
    workflowType: { name: child.workflowType },
    workflowExecution: { workflowId: child.workflowId, runId: child.runId },
    retryState,
  };
}

/** "Activity task failed" wrapping the activity's own failure. */
export function activityFailed(activity: ActivityRef, cause: ProtoFailure, retryState: RetryStateValue): ProtoFailure {
  return { message: 'Activity task failed', cause, activityFailureInfo: activityInfo(activity, retryState) };
}

/** "Activity cancelled" with a CancelledFailure cause. */
export function activityCancelled(activity: ActivityRef): ProtoFailure {
  return {
    message: 'Activity cancelled',
    cause: cancelledCause,
    activityFailureInfo: activityInfo(activity, RetryState.RETRY_STATE_CANCEL_REQUESTED),
  };
}

/** "Child Workflow execution failed" wrapping the child's failure. */
export function childFailed(child: ChildRef, cause: ProtoFailure | null | undefined): ProtoFailure {
  return {
    message: 'Child Workflow execution failed',
    cause,
    childWorkflowExecutionFailureInfo: childInfo(child, RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE),
  };
}

/** "Child Workflow execution cancelled" with a CancelledFailure cause. */
export function childCancelled(child: ChildRef): ProtoFailure {
  return {
    message: 'Child Workflow execution cancelled',
    cause: cancelledCause,
    childWorkflowExecutionFailureInfo: childInfo(child, RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE),
  };
}

/** "Child Workflow execution terminated" with a TerminatedFailure cause. */
export function childTerminated(child: ChildRef): ProtoFailure {
  return {
    message: 'Child Workflow execution terminated',
    cause: { message: 'Terminated', terminatedFailureInfo: {} },
    childWorkflowExecutionFailureInfo: childInfo(child, RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE),
  };
}

/** What Core reports when a signal or cancel request targets a workflow that does not exist. */
export function externalWorkflowNotFound(action: 'signal' | 'cancel'): ProtoFailure {
  const reason = action === 'signal' ? 'it was not found' : 'not found';
  return {
    message: `Unable to ${action} external workflow because ${reason}`,
    applicationFailureInfo: { type: 'ExternalWorkflowExecutionNotFound' },
  };
}
