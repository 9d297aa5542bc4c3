import { allHandlersFinished, condition, continueAsNew, workflowInfo, type Workflow } from '@temporalio/workflow';

/** History length past which a workflow continues as new by default (Temporal warns at 10,240 events). */
export const CONTINUE_AS_NEW_EVENTS = 5_000;

/** True when a workflow should continue as new: Temporal suggests it, or its history reached `threshold` events. */
export function shouldContinueAsNew(info: { historyLength: number; continueAsNewSuggested: boolean }, threshold = CONTINUE_AS_NEW_EVENTS): boolean {
  return info.continueAsNewSuggested || info.historyLength >= threshold;
}

/** True when this workflow's history is due for continue-as-new (see `shouldContinueAsNew`). */
export function historyIsFull(threshold = CONTINUE_AS_NEW_EVENTS): boolean {
  return shouldContinueAsNew(workflowInfo(), threshold);
}

/**
 * Waits until no message handler is running. A workflow that completes, fails or continues as new waits
 * here first, so an update in progress (an answer on its way to the service) is never cut off.
 */
export function handlersFinished(): Promise<void> {
  return condition(allHandlersFinished);
}

/**
 * Continues as new once the running message handlers have finished. The next execution's input is made
 * after that wait, so what the last handlers changed is carried.
 */
export async function continueAsNewAfterHandlers<F extends Workflow>(nextInput: () => Parameters<F>[0]): Promise<never> {
  await handlersFinished();
  return await continueAsNew<F>(...([nextInput()] as Parameters<F>));
}
