import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { pipelineRunStateQuery, respondToCheckpointUpdate } from '../workflows/definitions';
import { pipelineItemGenerationId, pipelineItemWorkflowId, pipelineRunWorkflowId } from '../domain/ids';
import type { PipelineRunState } from '../domain/pipeline-types';
import type { CheckpointAnswer } from '../workflows/types';

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
    // A resumed run's item runs under `<id>~<generation>`: listed under its key.
    for await (const execution of client.workflow.list({ query }))
      if (execution.workflowId.startsWith(prefix)) keys.push(execution.workflowId.slice(prefix.length).replace(/~\d+$/, ''));
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

/** Cancels a run (children stop, finished items are kept and written out) or, with `item`, that item's task; returns the workflow id. */
export async function cancelRun(client: Client, pipeline: string, runKey: string, item?: string): Promise<string> {
  const workflowId = item ? await currentItemWorkflowId(client, pipeline, runKey, item) : pipelineRunWorkflowId(pipeline, runKey);
  await client.workflow.getHandle(workflowId).cancel();
  return workflowId;
}

/** Answers an item's checkpoint through its workflow's validated update; rejects with the workflow's reason when it does not fit. */
export async function answerItemCheckpoint(
  client: Client,
  pipeline: string,
  runKey: string,
  item: string,
  answer: CheckpointAnswer,
): Promise<{ accepted: true; interactionId: string }> {
  return client.workflow.getHandle(await currentItemWorkflowId(client, pipeline, runKey, item)).executeUpdate(respondToCheckpointUpdate, { args: [answer] });
}
