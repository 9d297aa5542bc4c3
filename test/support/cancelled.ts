import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { pipelineRunStateQuery, researchTaskStateQuery } from '../../src/workflows/definitions';
import type { PipelineRunState } from '../../src/domain/pipeline-types';
import type { ResearchTaskState } from '../../src/workflows/types';
import type { QueryDefinition } from '@temporalio/common';

/** What these helpers need of a handle (a scenario's or a client's). */
interface ClosingHandle {
  readonly workflowId: string;
  result(): Promise<unknown>;
  query<T, Args extends unknown[] = []>(query: QueryDefinition<T, Args>, ...args: Args): Promise<T>;
}

/** Waits for a workflow cancelled by request to end Canceled (not Completed, not Failed); returns the error's message (the server keeps no text for a cancel). */
export async function endedCanceled(handle: ClosingHandle): Promise<string> {
  const error = await handle.result().then(
    (result) => {
      throw new Error(`${handle.workflowId} completed instead of ending Canceled: ${JSON.stringify(result).slice(0, 300)}`);
    },
    (failure: unknown) => failure,
  );
  // A client's error carries the CancelledFailure; a scenario handle's names the status.
  const canceled =
    (error instanceof WorkflowFailedError && error.cause instanceof CancelledFailure) || (error as { status?: unknown } | null)?.status === 'cancelled';
  if (!canceled) throw error;
  return (error as Error).message;
}

/** A research task workflow cancelled by request: it ends Canceled, and its state query keeps the outcome. */
export async function cancelledTask(handle: ClosingHandle): Promise<ResearchTaskState & { message: string }> {
  const message = await endedCanceled(handle);
  return { ...(await handle.query(researchTaskStateQuery)), message };
}

/** A pipeline run cancelled by request: it ends Canceled after writing its outputs; its state query keeps the counts and ledger. */
export async function cancelledRun(handle: ClosingHandle): Promise<PipelineRunState & { message: string }> {
  const message = await endedCanceled(handle);
  return { ...(await handle.query(pipelineRunStateQuery)), message };
}
