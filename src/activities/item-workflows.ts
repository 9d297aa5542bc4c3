import { Context } from '@temporalio/activity';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ItemSettledReport } from '../domain/pipeline-types';
import { throwIfCancelled } from './context';
import type { ResearchTaskResult } from '../domain/research-types';

/** `lookItemWorkflow` input: the research task workflow of a pipeline item. */
export interface LookItemWorkflowInput {
  workflowId: string;
}

/** What `lookItemWorkflow` saw: still running, or how it ended (as the item would have reported it). */
export type LookedItemWorkflow = { status: 'running' } | Omit<ItemSettledReport, 'item' | 'workflowId'>;

/**
 * Looks at an item's research task workflow that an earlier execution of the run started: a run cannot
 * await a child it did not start, so when the item's own report does not come, the run reads how it ended
 * here (through the worker's client and data converter). A workflow id the server does not know ended
 * without a trace: it counts as failed, so the item runs again under the run's retries.
 */
export function itemWorkflowActivities() {
  async function lookItemWorkflow(input: LookItemWorkflowInput): Promise<LookedItemWorkflow> {
    const handle = Context.current().client.workflow.getHandle<() => Promise<ResearchTaskResult>>(input.workflowId);
    try {
      const described = await handle.describe();
      if (described.status.name === 'RUNNING') return { status: 'running' };
      return { status: 'completed', result: await handle.result() };
    } catch (error) {
      throwIfCancelled();
      if (error instanceof WorkflowNotFoundError) return { status: 'failed', error: `workflow ${input.workflowId} is not known to the server` };
      if (!(error instanceof WorkflowFailedError)) throw error;
      const cause = error.cause;
      if (cause instanceof CancelledFailure) return { status: 'cancelled' };
      if (cause instanceof ApplicationFailure) {
        const details = cause.details?.[0] as { outputs?: ResearchTaskResult['outputs'] } | undefined;
        return {
          status: 'failed',
          error: cause.message,
          ...(cause.type ? { failureType: cause.type } : {}),
          ...(details?.outputs ? { outputs: details.outputs } : {}),
        };
      }
      return { status: 'failed', error: cause?.message ?? error.message };
    }
  }
  return { lookItemWorkflow };
}
