import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { pipelineRunStateQuery, respondToCheckpointUpdate } from '../workflows/definitions';
import { pipelineItemGenerationId, pipelineItemWorkflowId, pipelineRunWorkflowId } from '../domain/ids';
import type { PipelineRunState } from '../domain/pipeline-types';
import type { CheckpointAnswer } from '../workflows/types';
import { ItemStepTaskError, itemSteps, stepTaskOf, type StepAction } from './item-steps';

/** A run's progress and the items whose research task waits at a checkpoint (undefined where visibility cannot tell). */
export type RunProgress = PipelineRunState & { waitingOnCheckpoint: string[] | undefined };

/** The progress of run `runKey` of `pipeline` (what `rp status` and the intake show). */
export async function runProgress(client: Client, pipeline: string, runKey: string): Promise<RunProgress> {
  const state = await client.workflow.getHandle(pipelineRunWorkflowId(pipeline, runKey)).query(pipelineRunStateQuery);
  return { ...state, waitingOnCheckpoint: await checkpointWaits(client, pipeline, runKey) };
}

/** Items of a run whose research task waits at a checkpoint, from visibility (undefined where the server cannot tell). */
export async function checkpointWaits(client: Client, pipeline: string, runKey: string): Promise<string[] | undefined> {
  const prefix = pipelineItemWorkflowId(pipeline, runKey, '');
  try {
    const keys: string[] = [];
    const query = `WorkflowType = 'researchTaskWorkflow' AND ExecutionStatus = 'Running' AND ResearchPipeline = '${pipeline.replace(/'/g, '')}' AND ResearchStatus IN ('awaiting_input', 'paused')`;
    // A resumed run's item runs under `<id>~<generation>`, a `steps:` item's step task under `<id>/steps/<step>`: listed under its key.
    for await (const execution of client.workflow.list({ query }))
      if (execution.workflowId.startsWith(prefix))
        keys.push(
          execution.workflowId
            .slice(prefix.length)
            .replace(/\/steps\/[^/]+$/, '')
            .replace(/~\d+$/, ''),
        );
    return keys;
  } catch {
    return undefined;
  }
}

/**
 * The workflow serving an item now: the plain id, or `<id>~<n>` when a resumed run started the item again
 * (after a cancel) under its next generation; the newest that exists.
 */
export async function currentItemWorkflowId(client: Client, pipeline: string, runKey: string, item: string): Promise<string> {
  let current = pipelineItemWorkflowId(pipeline, runKey, item);
  for (let generation = 1; generation <= 1_000; generation++) {
    const next = pipelineItemGenerationId(pipeline, runKey, item, generation);
    try {
      await client.workflow.getHandle(next).describe();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return current;
      throw error;
    }
    current = next;
  }
  return current;
}

/**
 * The research task workflow an operator's `action` on an item reaches. A one-step run's item has its own
 * (see {@link currentItemWorkflowId}); a `steps:` item has one per DeepResearch or service-workflow step:
 * the step `stepId` names, else the one running now (newest generation, as `rp status --item` finds it).
 * Throws `ItemStepTaskError` saying where the item is when it has no such task.
 */
export async function itemTaskWorkflowId(client: Client, pipeline: string, runKey: string, item: string, action: StepAction, stepId?: string): Promise<string> {
  // A run gone from the server (or not answering) cannot list steps: the item's own workflow is looked for, as before steps existed.
  const state = await client.workflow
    .getHandle(pipelineRunWorkflowId(pipeline, runKey))
    .query(pipelineRunStateQuery)
    .catch(() => undefined);
  if (state?.steps) {
    const views = await itemSteps(client, pipeline, runKey, item, state.steps);
    const inFlight = state.running.includes(item);
    return stepTaskOf(views, item, action, { ...(stepId !== undefined ? { stepId } : {}), inFlight }).workflowId!;
  }
  if (stepId !== undefined)
    throw new ItemStepTaskError(
      `run ${pipeline}/${runKey} ${state ? 'has one step per item' : 'cannot be asked for its steps'}: a step is named only for a steps: run`,
    );
  return currentItemWorkflowId(client, pipeline, runKey, item);
}

/**
 * Cancels a run (children stop, finished items are kept and written out) or, with `item`, that item's
 * task (a `steps:` item's running step task, or step `stepId`'s); returns the workflow id.
 */
export async function cancelRun(client: Client, pipeline: string, runKey: string, item?: string, stepId?: string): Promise<string> {
  const workflowId = item ? await itemTaskWorkflowId(client, pipeline, runKey, item, 'cancel', stepId) : pipelineRunWorkflowId(pipeline, runKey);
  await client.workflow.getHandle(workflowId).cancel();
  return workflowId;
}

/**
 * Answers an item's checkpoint (a `steps:` item's: its running step task's, or step `stepId`'s) through
 * its workflow's validated update; rejects with the workflow's reason when it does not fit.
 */
export async function answerItemCheckpoint(
  client: Client,
  pipeline: string,
  runKey: string,
  item: string,
  answer: CheckpointAnswer,
  stepId?: string,
): Promise<{ accepted: true; interactionId: string }> {
  const workflowId = await itemTaskWorkflowId(client, pipeline, runKey, item, 'respond', stepId);
  return client.workflow.getHandle(workflowId).executeUpdate(respondToCheckpointUpdate, { args: [answer] });
}
