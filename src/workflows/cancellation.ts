import { CancellationScope, CancelledFailure } from '@temporalio/workflow';

/**
 * Throws when the workflow (or the scope around) is already cancelled. Paid calls run in non-cancellable
 * scopes once sent, so their outcome is known; this check before sending keeps a workflow cancelled
 * before its create (or batch add) from creating and paying anyway.
 */
export function throwIfCancelled(): void {
  if (CancellationScope.current().consideredCancelled) throw new CancelledFailure('cancelled before the paid call was sent');
}
