import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { pipelineStepWorkflowId } from '../domain/ids';
import type { PipelineRunState } from '../domain/pipeline-types';
import { researchTaskStateQuery } from '../workflows/definitions';

/** One step of a `steps:` item as `rp status --item` shows it. */
export interface ItemStepView {
  id: string;
  kind: string;
  /** The step's research task workflow (DeepResearch and service-workflow steps), once started. */
  workflowId?: string;
  /** The task's status as its workflow tells it (`completed`, `awaiting_input`…), or the workflow's (`running`, `failed`…) when it cannot be asked. */
  status?: string;
  /** USD the task was billed so far. */
  costUsd?: number;
}

/** Kinds whose step runs in a research task workflow of its own; the others are calls recorded with the item. */
const CHILD_KINDS = new Set(['deepresearch', 'workflow']);

async function described(client: Client, workflowId: string) {
  try {
    return await client.workflow.getHandle(workflowId).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/**
 * A step's research task workflow serving the item now: under the item's plain id, or under its newest
 * generation (`~<n>`, a resumed run that started the item again after a cancel).
 */
async function newestStepWorkflow(client: Client, pipeline: string, runKey: string, item: string, stepId: string) {
  let found: { workflowId: string; status: string } | undefined;
  for (let generation = 0; generation <= 1_000; generation++) {
    const workflowId = pipelineStepWorkflowId(pipeline, runKey, item, stepId, generation || undefined);
    const description = await described(client, workflowId);
    if (description) found = { workflowId, status: description.status.name.toLowerCase() };
    // The plain id may be missing when the first generation stopped before this step; a later one may not.
    else if (generation >= 1) break;
  }
  return found;
}

/**
 * The steps of a `steps:` item with the research task of each DeepResearch or service-workflow step: its
 * workflow id, its status and cost (asked of the task's workflow, else read from its description).
 */
export async function itemSteps(
  client: Client,
  pipeline: string,
  runKey: string,
  item: string,
  steps: NonNullable<PipelineRunState['steps']>,
): Promise<ItemStepView[]> {
  const views: ItemStepView[] = [];
  for (const step of steps) {
    const view: ItemStepView = { id: step.id, kind: step.kind };
    views.push(view);
    if (!CHILD_KINDS.has(step.kind)) continue;
    const found = await newestStepWorkflow(client, pipeline, runKey, item, step.id);
    if (!found) continue;
    view.workflowId = found.workflowId;
    view.status = found.status;
    try {
      const state = await client.workflow.getHandle(found.workflowId).query(researchTaskStateQuery);
      view.status = state.status;
      if (state.cost !== undefined) view.costUsd = state.cost;
    } catch {
      // No worker to answer for a closed workflow: its description says enough.
    }
  }
  return views;
}
