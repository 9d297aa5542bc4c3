import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, executeChild, isCancellation, sleep } from '@temporalio/workflow';
import type { ItemRequest } from '../pipelines/render-item';
import { sequenceSteps, type SequenceStepSpec } from '../pipelines/step-kind';
import { pipelineStepCallKey, pipelineStepWorkflowId } from '../domain/ids';
import { FailureType } from '../domain/failures';
import type { PipelineStepRecord, PlannedItem, StepPlan, StepPosition } from '../domain/pipeline-types';
import type { ResearchTaskResult } from '../domain/research-types';
import { itemCalls, shortCalls } from './activity-proxies';
import { failureMessage, failureType } from './failure-info';
import { adoptedOutcome, cancelledItemCallOutcome, childOutcome, failedItemCallOutcome, itemCallOutcome } from './pipeline-item-outcomes';
import type { PipelineRun } from './pipeline-run-context';
import type { ItemOutcome } from './pipeline-run-model';
import { followStep, parkStep, runCarriableStep, stepChildEnded, stepChildOptions, stopped, type StepCarrying } from './pipeline-step-carry';
import { stepPlanInput, stepRecordOf, stepReserve, stepsOutcome } from './pipeline-step-outcomes';
import type { ResearchTaskInput } from './types';

/** How often a step's research task that an earlier execution started is looked at until it ends. */
export const STEP_WORKFLOW_LOOK_MS = 60_000;

/**
 * Runs the `steps:` of one item in order and returns the item's outcome; never throws. Each step is
 * planned by an activity (reused if an earlier attempt or execution completed or skipped it, skipped if
 * its `when:` does not hold, else rendered with the earlier results and priced), then run: a research
 * task child for DeepResearch and service workflows, a paid-call activity for Answer, Search and
 * Contents. Each step's part of the item's reservation is settled as it ends, and a completed step's
 * record is written before the next starts, so a retry or `--resume` never pays for it again.
 * `onChild` names the research task a step runs in (the run forwards an operator's resume to it).
 */
export async function runItemSteps(
  run: PipelineRun,
  item: PlannedItem,
  attempts: number,
  onChild: (workflowId?: string) => void,
  carrying?: StepCarrying,
): Promise<ItemOutcome> {
  const steps = sequenceSteps(run.definition);
  const reserves = item.stepwise?.reserves ?? [];
  const from = carrying?.from;
  // A carried item goes on at its step, with the records of the steps before it.
  const records: PipelineStepRecord[] = [...(from?.records ?? [])];
  for (const [index, step] of steps.entries()) {
    if (from && index < from.index) continue;
    const reserved = stepReserve(reserves, index, from);
    const position = (reservedUsd: number): StepPosition => ({ index, reservedUsd, records: [...records] });
    if (carrying && from?.index === index) {
      if (from.workflowId !== undefined) {
        // This step's research task ran when the previous execution carried the item: followed, never started again.
        const outcome = await followStep(run, item, carrying, { ...position(reserved), workflowId: from.workflowId }, onChild);
        if (run.model.continuedAsNew) return await stopped();
        const ended = await endStep(run, item, step, reserved, outcome, records);
        if (ended) return ended;
        continue;
      }
      // Carried between steps: this step runs now, even if the run drains again, so every execution moves the item on.
      run.model.stepPosition(item.key, undefined);
    } else if (carrying && run.model.draining) {
      // The run drains for continue-as-new: the item stops here, with its earlier steps recorded, and the next execution goes on.
      return await parkStep(run, item, records, position(reserved));
    }
    let plan: StepPlan;
    try {
      plan = await shortCalls.planPipelineStep(stepPlanInput(run.ref, item, index, step, records));
    } catch (error) {
      run.model.settleStep(item.key, reserved, 0);
      if (isCancellation(error)) return stepsOutcome(records, { status: 'cancelled', costUsd: 0 });
      return stepsOutcome(records, {
        status: 'failed',
        costUsd: 0,
        error: `step ${step.id} could not be planned: ${failureMessage(error)}`,
        failureType: failureType(error),
      });
    }
    if (plan.kind === 'reuse' || plan.kind === 'skip') {
      run.model.settleStep(item.key, reserved, 0);
      records.push(plan.record);
      continue;
    }
    if (plan.kind === 'problem') {
      run.model.settleStep(item.key, reserved, 0);
      return stepsOutcome(records, { status: 'failed', costUsd: 0, error: plan.error, failureType: FailureType.InvalidInput }, { ...step, at: Date.now() });
    }
    // The run began draining while the step was planned: it stops before paying (the next execution plans it again, for nothing).
    if (carrying && from?.index !== index && run.model.draining) return await parkStep(run, item, records, position(reserved));
    const extra = plan.reserveUsd - reserved;
    if (extra > 0 && !run.model.reserveMore(item.key, extra)) {
      run.model.settleStep(item.key, reserved, 0);
      return stepsOutcome(
        records,
        {
          status: 'failed',
          costUsd: 0,
          error: `step ${step.id} costs ${plan.reserveUsd} USD, more than the ${reserved} USD planned, and the budget has no room for it`,
        },
        { ...step, at: Date.now() },
      );
    }
    const stepReserved = Math.max(reserved, plan.reserveUsd);
    // From here the step spends: the run waits for it (or carries its research task) before continuing as new.
    if (carrying) run.model.stepPosition(item.key, undefined);
    const outcome = await runStep(
      run,
      item,
      step,
      plan.request,
      stepReserved,
      attempts,
      onChild,
      plan.existingTask,
      carrying && { carrying, position: position(stepReserved) },
    );
    if (carrying && run.model.continuedAsNew) return await stopped();
    const ended = await endStep(run, item, step, stepReserved, outcome, records);
    if (ended) return ended;
  }
  return stepsOutcome(records, { status: 'completed', costUsd: 0 });
}

/**
 * A step's request ended: its money is settled and its record kept (and written, when it completed,
 * before the next step starts). Returns the item's outcome when the item stops here.
 */
async function endStep(
  run: PipelineRun,
  item: PlannedItem,
  step: SequenceStepSpec,
  stepReserved: number,
  outcome: ItemOutcome,
  records: PipelineStepRecord[],
): Promise<ItemOutcome | undefined> {
  if (outcome.status === 'credits_exhausted') {
    run.model.settleStep(item.key, stepReserved, 0);
    return outcome;
  }
  run.model.settleStep(item.key, stepReserved, outcome.costUsd);
  const record = stepRecordOf(step, outcome, Date.now());
  records.push(record);
  if (outcome.status !== 'completed') return stepsOutcome(records, outcome);
  try {
    await shortCalls.recordPipelineStep({ prefix: run.prefix, itemKey: item.key, record });
  } catch (error) {
    // The step is paid and its result stored (a call step's result file, a task's workflow): a retry
    // finds it there, so the item fails now rather than going on without its record.
    const status = isCancellation(error) ? 'cancelled' : 'failed';
    return stepsOutcome(records, { status, costUsd: 0, error: `step ${step.id} ended but its record could not be written: ${failureMessage(error)}` });
  }
  return undefined;
}

/** Runs one step's request to its outcome; never throws. */
async function runStep(
  run: PipelineRun,
  item: PlannedItem,
  step: SequenceStepSpec,
  request: ItemRequest,
  reserveUsd: number,
  attempts: number,
  onChild: (workflowId?: string) => void,
  existingTask?: string,
  carry?: { carrying: StepCarrying; position: StepPosition },
): Promise<ItemOutcome> {
  if (request.kind === 'deepresearch' || request.kind === 'workflow') {
    const workflowId = pipelineStepWorkflowId(run.definition.name, run.runKey, item.key, step.id, item.generation);
    if (carry) return await runCarriableStep(run, item, step, request, attempts, onChild, workflowId, carry, existingTask);
    onChild(workflowId);
    try {
      const result = await executeChild<(input: ResearchTaskInput) => Promise<ResearchTaskResult>>(
        'researchTaskWorkflow',
        stepChildOptions(run, item, step, request, attempts, workflowId, existingTask, ParentClosePolicy.REQUEST_CANCEL),
      );
      return childOutcome(workflowId, result);
    } catch (error) {
      // Started by an earlier execution (the run was stopped, then resumed): followed to its end, not paid again.
      if (error instanceof WorkflowExecutionAlreadyStartedError) return await followStepWorkflow(workflowId);
      return stepChildEnded(run, workflowId, error);
    } finally {
      run.stepReports.delete(workflowId);
      onChild(undefined);
    }
  }
  try {
    return itemCallOutcome(await itemCalls.runPipelineItem({ key: pipelineStepCallKey(item.key, step.id), request, prefix: run.prefix, reserveUsd }));
  } catch (error) {
    if (isCancellation(error)) return cancelledItemCallOutcome(reserveUsd);
    return failedItemCallOutcome(error, reserveUsd);
  }
}

/** Looks at a step's research task workflow this execution did not start until it ends; never throws. */
async function followStepWorkflow(workflowId: string): Promise<ItemOutcome> {
  try {
    for (;;) {
      const looked = await shortCalls.lookItemWorkflow({ workflowId });
      if (looked.status !== 'running') return adoptedOutcome(workflowId, looked);
      await sleep(STEP_WORKFLOW_LOOK_MS);
    }
  } catch (error) {
    if (isCancellation(error)) return { status: 'cancelled', costUsd: 0, workflowId };
    return { status: 'failed', costUsd: 0, workflowId, error: failureMessage(error), failureType: failureType(error) };
  }
}
