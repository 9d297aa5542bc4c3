import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, WorkflowIdReusePolicy, condition, isCancellation, startChild } from '@temporalio/workflow';
import type { ItemRequest } from '../pipelines/render-item';
import type { SequenceStepSpec } from '../pipelines/step-kind';
import type { PipelineStepRecord, PlannedItem, StepPosition } from '../domain/pipeline-types';
import type { ResearchTaskResult } from '../domain/research-types';
import { itemSummary } from './pipeline-child-summaries';
import { adoptedOutcome, childOutcome, failedChildOutcome } from './pipeline-item-outcomes';
import type { PipelineRun } from './pipeline-run-context';
import type { ItemOutcome } from './pipeline-run-model';
import { stepsOutcome } from './pipeline-step-outcomes';
import type { ResearchTaskInput } from './types';

// How a `steps:` item crosses continue-as-new: it stops between steps while the run drains, or stands
// inside a step's research task, which outlives the execution; the next execution goes on from there.

/**
 * The options a step's research task child starts with: its deterministic id, the request's task input and
 * the item's summary with the step. `parentClosePolicy` is ABANDON when the item may be carried across
 * continue-as-new (the next execution adopts the task), REQUEST_CANCEL otherwise.
 */
export function stepChildOptions(
  run: PipelineRun,
  item: PlannedItem,
  step: SequenceStepSpec,
  request: ItemRequest & { kind: 'deepresearch' | 'workflow' },
  attempts: number,
  workflowId: string,
  existingTask: string | undefined,
  parentClosePolicy: ParentClosePolicy,
): {
  workflowId: string;
  args: [ResearchTaskInput];
  workflowIdReusePolicy: WorkflowIdReusePolicy;
  parentClosePolicy: ParentClosePolicy;
  staticSummary: string;
} {
  return {
    workflowId,
    args: [run.taskInput(item.key, request.request, existingTask)],
    // A failed attempt may run again; a completed or running step's workflow is never started twice.
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    parentClosePolicy,
    staticSummary: `${itemSummary(run.identity, item, attempts)} · step ${step.id}`,
  };
}

/**
 * A `steps:` item the run may carry across continue-as-new: it stops between steps while the run drains,
 * its steps' research tasks outlive the execution (abandon close policy; cancelling the run still cancels
 * them), and a task this execution did not start is followed through the run (`follow`).
 */
/**
 * The outcome of a step's research task whose result rejected: a task that ended Canceled reported what it
 * cost, what it stored and whether the service left it open (its report is kept for the step); any other
 * failure fails the step.
 */
export function stepChildEnded(run: PipelineRun, workflowId: string, error: unknown): ItemOutcome {
  const report = run.stepReports.get(workflowId);
  if (isCancellation(error)) return report ? adoptedOutcome(workflowId, report) : { status: 'cancelled', costUsd: 0, workflowId };
  return failedChildOutcome(workflowId, error);
}

export interface StepCarrying {
  /** Follows a step's research task this execution did not start to its end (its report, or a look now and then); never throws. */
  follow(workflowId: string): Promise<ItemOutcome>;
  /** Where the previous execution carried the item from (see `StepPosition`). */
  from?: StepPosition;
}

/**
 * The item stops between steps while the run drains: it stands at `at` (the next execution goes on from
 * there) until the run continues as new. A run cancelled meanwhile ends it cancelled, with what it recorded.
 */
export async function parkStep(run: PipelineRun, item: PlannedItem, records: PipelineStepRecord[], at: StepPosition): Promise<ItemOutcome> {
  run.model.stepPosition(item.key, at);
  run.wake();
  try {
    await condition(() => false);
  } catch (error) {
    if (!isCancellation(error)) throw error;
  }
  return stepsOutcome(records, { status: 'cancelled', costUsd: 0 });
}

/** The run continued as new while the item moved: nothing more happens in this execution (the next goes on from what was carried). */
export function stopped(): Promise<never> {
  return new Promise<never>(() => undefined);
}

/** Follows a step's research task the run adopts (started by an earlier execution); the item can be carried meanwhile. */
export async function followStep(
  run: PipelineRun,
  item: PlannedItem,
  carrying: StepCarrying,
  at: StepPosition & { workflowId: string },
  onChild: (workflowId?: string) => void,
): Promise<ItemOutcome> {
  onChild(at.workflowId);
  run.model.stepPosition(item.key, at);
  run.wake();
  try {
    return await carrying.follow(at.workflowId);
  } finally {
    // Synchronously as the outcome arrives, so the run never carries a step whose end this execution applied.
    run.model.stepPosition(item.key, undefined);
    onChild(undefined);
  }
}

/**
 * Runs a step's research task so that the run can carry the item while it runs: the task outlives the
 * execution (abandon close policy; cancelling the run still cancels it), and once it has started the item
 * stands inside it (`stepPosition`). A task that already exists (an earlier execution started it) is
 * followed through the run rather than started again. Never throws.
 */
export async function runCarriableStep(
  run: PipelineRun,
  item: PlannedItem,
  step: SequenceStepSpec,
  request: Extract<ItemRequest, { kind: 'deepresearch' | 'workflow' }>,
  attempts: number,
  onChild: (workflowId?: string) => void,
  workflowId: string,
  { carrying, position }: { carrying: StepCarrying; position: StepPosition },
  existingTask?: string,
): Promise<ItemOutcome> {
  onChild(workflowId);
  try {
    const child = await startChild<(input: ResearchTaskInput) => Promise<ResearchTaskResult>>(
      'researchTaskWorkflow',
      stepChildOptions(run, item, step, request, attempts, workflowId, existingTask, ParentClosePolicy.ABANDON),
    );
    run.model.stepPosition(item.key, { ...position, workflowId });
    run.wake();
    let result: ResearchTaskResult;
    try {
      result = await child.result();
    } finally {
      // Synchronously as the outcome arrives, so the run never carries a step whose end this execution applied.
      run.model.stepPosition(item.key, undefined);
    }
    return childOutcome(workflowId, result);
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      onChild(undefined);
      return await followStep(run, item, carrying, { ...position, workflowId }, onChild);
    }
    return stepChildEnded(run, workflowId, error);
  } finally {
    run.stepReports.delete(workflowId);
    onChild(undefined);
  }
}
