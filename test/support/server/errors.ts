import { WorkflowFailedError as ClientWorkflowFailedError, WorkflowUpdateFailedError as ClientWorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure, WorkflowNotFoundError } from '@temporalio/common';
import { WorkflowFailedError, WorkflowNotRunningError, WorkflowQueryFailedError, WorkflowUpdateFailedError } from './scenario-errors';

// The client wraps failures in generic errors ("Workflow execution failed"); scenarios assert on the
// failure itself, so both environments throw the harness's error classes with the failure's message.

/** The first ApplicationFailure type down an error's cause chain. */
export function applicationType(error: unknown): string | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof ApplicationFailure && current.type) return current.type;
  }
  return undefined;
}

/** Maps a client error from `result()` to the scenario error. */
export function resultError(error: unknown, workflowId: string): unknown {
  if (!(error instanceof ClientWorkflowFailedError)) return error;
  const { cause } = error;
  const status = cause instanceof CancelledFailure ? 'cancelled' : cause instanceof TerminatedFailure ? 'terminated' : 'failed';
  return new WorkflowFailedError(workflowId, status, cause?.message || error.message, applicationType(cause), cause);
}

/** Maps a client error from `executeUpdate()` to the scenario error. */
export function updateError(error: unknown, updateName: string): unknown {
  if (error instanceof ClientWorkflowUpdateFailedError) {
    const { cause } = error;
    return new WorkflowUpdateFailedError(updateName, cause?.message || error.message, applicationType(cause), cause);
  }
  return messageError(error);
}

/** Maps a client error from `query()` to the scenario error. */
export function queryError(error: unknown): unknown {
  if (error instanceof WorkflowNotFoundError || !(error instanceof Error)) return error;
  return new WorkflowQueryFailedError(error.message);
}

/** Maps "workflow not found" (the execution already closed) to the scenario error. */
export function messageError(error: unknown): unknown {
  return error instanceof WorkflowNotFoundError ? new WorkflowNotRunningError(error.message) : error;
}
