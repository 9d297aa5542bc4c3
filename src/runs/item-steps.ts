import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { pipelineStepWorkflowId } from '../domain/ids';
import type { PipelineRunState } from '../domain/pipeline-types';
import { researchTaskStateQuery } from '../workflows/definitions';
import type { ResearchTaskState } from '../workflows/types';

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
  /** The step's research task workflow is running now (an operator's answer, resume or cancel reaches it). */
  open?: boolean;
  /** The checkpoint the step's task waits at (answer it with `rp respond --item`). */
  interaction?: ResearchTaskState['interaction'];
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
  let found: { workflowId: string; status: string; open: boolean } | undefined;
  for (let generation = 0; generation <= 1_000; generation++) {
    const workflowId = pipelineStepWorkflowId(pipeline, runKey, item, stepId, generation || undefined);
    const description = await described(client, workflowId);
    if (description) found = { workflowId, status: description.status.name.toLowerCase(), open: description.status.name === 'RUNNING' };
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
    view.open = found.open;
    try {
      const state = await client.workflow.getHandle(found.workflowId).query(researchTaskStateQuery);
      view.status = state.status;
      if (state.cost !== undefined) view.costUsd = state.cost;
      if (found.open && state.interaction) view.interaction = state.interaction;
    } catch {
      // No worker to answer for a closed workflow: its description says enough.
    }
  }
  return views;
}

/** What an operator asks of an item's step task: the words its error uses. */
export type StepAction = 'respond' | 'resume' | 'cancel';

const ACTION_WORDS: Record<StepAction, string> = { respond: 'respond to', resume: 'resume', cancel: 'cancel' };

/** No step task of a `steps:` item to act on: the message says where the item is and what its steps are. */
export class ItemStepTaskError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ItemStepTaskError';
  }
}

const CALL_NAMES: Record<string, string> = { answer: 'an Answer call', search: 'a Search call', contents: 'a Contents call' };
const callWord = (kind: string): string => CALL_NAMES[kind] ?? `a ${kind} call`;

/** One step as an error lists it: `profile · answer (a call)`, `brief · deepresearch: awaiting_input`. */
function stepLine(step: ItemStepView): string {
  if (!CHILD_KINDS.has(step.kind)) return `${step.id} · ${step.kind} (a call)`;
  return `${step.id} · ${step.kind}: ${step.workflowId === undefined ? 'no task yet' : `${step.status ?? 'unknown'}${step.open ? '' : ' (ended)'}`}`;
}

/**
 * The research task an operator's `action` on a `steps:` item reaches: the step `stepId` names, else the
 * step whose task runs now. Throws {@link ItemStepTaskError} naming where the item is when there is none.
 * `inFlight`: whether the run has the item in flight now (undefined when the run cannot tell).
 */
export function stepTaskOf(
  views: readonly ItemStepView[],
  item: string,
  action: StepAction,
  options: { stepId?: string; inFlight?: boolean } = {},
): ItemStepView {
  const verb = ACTION_WORDS[action];
  const listing = `its steps: ${views.map(stepLine).join('; ')}`;
  if (options.stepId !== undefined) {
    const step = views.find((view) => view.id === options.stepId);
    if (!step) throw new ItemStepTaskError(`item ${item} has no step ${options.stepId} (${listing})`);
    if (!CHILD_KINDS.has(step.kind)) throw new ItemStepTaskError(`step ${step.id} of item ${item} is ${callWord(step.kind)}, which has no task to ${verb}`);
    if (step.workflowId === undefined)
      throw new ItemStepTaskError(`step ${step.id} of item ${item} has no task to ${verb} (not reached yet, or skipped by its when:; ${listing})`);
    return step;
  }
  const open = views.filter((view) => view.open);
  if (open.length > 0) return open[open.length - 1]!;
  if (options.inFlight === false) throw new ItemStepTaskError(`item ${item} is not in flight, so no step task to ${verb} (${listing})`);
  // In flight with no task running: at a call step after the last step whose task ran (a `when:` may skip some).
  const lastTask = views.reduce((last, view, index) => (view.workflowId !== undefined ? index : last), -1);
  const calls = views.slice(lastTask + 1).filter((view) => !CHILD_KINDS.has(view.kind));
  const where =
    calls.length === 1
      ? `is at step ${calls[0]!.id} (${callWord(calls[0]!.kind)}), which has no task to ${verb}`
      : calls.length > 1
        ? `is at one of its call steps (${calls.map((view) => view.id).join(', ')}), which have no task to ${verb}`
        : `has no step task running to ${verb}`;
  throw new ItemStepTaskError(`item ${item} ${where} (${listing})`);
}
