import type { PipelineRunRef } from '../activities/pipeline-items';
import type { PlanPipelineStepInput } from '../activities/pipeline-steps';
import type { SequenceStepSpec } from '../pipelines/step-kind';
import { roundUsd } from '../domain/budget';
import type { PipelineStepRecord, PlannedItem, StepPosition } from '../domain/pipeline-types';
import type { ItemOutcome } from './pipeline-run-model';

// How the steps of a `steps:` item add up to the item's outcome: plain data in, plain data out, so the
// money each way of ending counts is tested apart from the workflow.

type Ended = Extract<ItemOutcome, { costUsd: number }>;

/** A step's record from how its request ended. */
export function stepRecordOf(step: Pick<SequenceStepSpec, 'id' | 'kind'>, outcome: Ended, now: number): PipelineStepRecord {
  return {
    id: step.id,
    kind: step.kind,
    status: outcome.status,
    costUsd: roundUsd(outcome.costUsd),
    ...(outcome.result ? { result: outcome.result } : {}),
    ...(outcome.outputs ? { outputs: outcome.outputs } : {}),
    ...(outcome.workflowId ? { workflowId: outcome.workflowId } : {}),
    ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    ...(outcome.possiblyChargedUsd ? { possiblyChargedUsd: outcome.possiblyChargedUsd } : {}),
    ...(outcome.openAtService ? { openAtService: outcome.openAtService } : {}),
    finishedAt: now,
  };
}

/**
 * The item's outcome once its steps stop: `completed` when every step completed or was skipped, else how
 * the step that stopped it ended (its error named after it). The cost is the steps' sum, already settled
 * step by step (`settledBySteps`); a step that may have been charged is said in `possiblyChargedUsd`, so
 * a retry of the item carries it (completed steps are reused, never counted twice). `notRun` is a step
 * that failed before anything was sent (a template naming a missing result): recorded at no cost.
 */
export function stepsOutcome(
  records: readonly PipelineStepRecord[],
  ended: Ended,
  notRun?: Pick<SequenceStepSpec, 'id' | 'kind'> & { at: number },
): ItemOutcome {
  const steps = notRun
    ? [
        ...records,
        { id: notRun.id, kind: notRun.kind, status: ended.status, costUsd: 0, ...(ended.error ? { error: ended.error } : {}), finishedAt: notRun.at },
      ]
    : [...records];
  const last = steps[steps.length - 1];
  const stopped = ended.status !== 'completed' ? last : undefined;
  const possiblyChargedUsd = stopped?.possiblyChargedUsd ?? 0;
  const error = ended.error ?? stopped?.error;
  return {
    status: ended.status,
    costUsd: roundUsd(steps.reduce((sum, step) => sum + step.costUsd, 0)),
    steps,
    settledBySteps: true,
    ...(error !== undefined ? { error: stopped ? `step ${stopped.id}: ${error}` : error } : {}),
    ...(ended.failureType ? { failureType: ended.failureType } : {}),
    ...(possiblyChargedUsd > 0 ? { possiblyChargedUsd } : {}),
  };
}

/**
 * What step `index` of a `steps:` item holds of the item's reservation. An item carried across
 * continue-as-new from `from` settled the steps before it in an earlier execution (they hold nothing
 * now, and are not run again: their records came with it), and its step `from.index` holds what it held
 * then (a step may have reserved more than planned).
 */
export function stepReserve(reserves: readonly number[], index: number, from?: Pick<StepPosition, 'index' | 'reservedUsd'>): number {
  if (from && index < from.index) return 0;
  if (from && index === from.index) return from.reservedUsd;
  return reserves[index] ?? 0;
}

/**
 * `planPipelineStep`'s input for step `index` of an item: the step alone with the run's template context,
 * never the whole definition (the input sits in history once per step and item).
 */
export function stepPlanInput(
  run: Pick<PipelineRunRef, 'prefix' | 'runKey' | 'runDate' | 'params' | 'definition'>,
  item: PlannedItem,
  index: number,
  step: SequenceStepSpec,
  earlier: PipelineStepRecord[],
): PlanPipelineStepInput {
  return {
    prefix: run.prefix,
    runKey: run.runKey,
    runDate: run.runDate,
    params: run.params,
    pipeline: run.definition.name,
    spec: step,
    item: { key: item.key, index: item.index, where: item.where, value: item.stepwise?.value },
    step: index,
    earlier,
  };
}
