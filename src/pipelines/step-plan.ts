/**
 * The pure rules of `steps:` items and `input.where:`: which rows a run keeps, what each step reserves
 * before the item starts, whether a step runs given the earlier results, and how those results appear
 * to templates and conditions (`steps.<id>.result.output.x`). Activities and the dry run call these.
 */
import { describeCondition, evaluateCondition, type Condition } from './condition';
import type { PipelineDefinition } from './definition-schema';
import { estimateStep } from './estimate';
import { sequenceSteps, type SequenceStepSpec } from './step-kind';
import type { ParameterValue } from './parameter-schema';
import type { CostEstimate } from './types';

type Params = Record<string, ParameterValue>;

/** Whether `input.where:` keeps a row (true when there is no filter). */
export function keptByWhere(definition: Pick<PipelineDefinition, 'input'>, value: unknown, params: Params): boolean {
  const where = definition.input?.where;
  return where === undefined || evaluateCondition(where, { item: value, params }) === true;
}

/** What an earlier step left for later ones to read: how it ended and, when it completed, its result. */
export interface StepResultView {
  status: 'completed' | 'failed' | 'cancelled' | 'skipped';
  /** The structured output (JSON), an answer's text, search or contents results, or a report's Markdown. */
  output?: unknown;
  costUsd: number;
  /** Where the stored result or report is (its URI). */
  report?: string;
}

/**
 * The `steps` scope of templates and conditions: `steps.<id>.status`, and `steps.<id>.result` with the
 * same fields a CSV column sees as `result` (`status`, `output`, `cost_usd`, `report`).
 */
export function stepsScope(views: ReadonlyMap<string, StepResultView>): Record<string, unknown> {
  const scope: Record<string, unknown> = {};
  for (const [id, view] of views) {
    scope[id] = {
      status: view.status,
      ...(view.status === 'completed'
        ? { result: { status: view.status, output: view.output, cost_usd: view.costUsd, ...(view.report ? { report: view.report } : {}) } }
        : {}),
    };
  }
  return scope;
}

/** Whether a step runs: its `when:` over the item, the parameters and the earlier steps; else why it is skipped. */
export function stepDecision(
  step: Pick<SequenceStepSpec, 'when'>,
  scope: { item: unknown; params: Params; steps: Record<string, unknown> },
): { run: true } | { run: false; because: string } {
  if (!step.when) return { run: true };
  return evaluateCondition(step.when, scope) === true ? { run: true } : { run: false, because: `when: ${describeCondition(step.when)} did not hold` };
}

/** One step as planned before the item starts: its estimate, and whether it runs as far as the item alone tells. */
export interface PlannedStepEstimate {
  id: string;
  kind: SequenceStepSpec['kind'];
  estimate: CostEstimate;
  /** true: runs; false: its `when:` is ruled out by the item; undefined: depends on earlier results. */
  runs: boolean | undefined;
  when?: Condition;
}

/**
 * Each step of a `steps:` item before it starts: its price from its configuration, and whether its
 * `when:` holds as far as the item and parameters tell (conditions over earlier results are unknown yet).
 */
export function planSteps(definition: Pick<PipelineDefinition, 'steps'>, value: unknown, params: Params): PlannedStepEstimate[] {
  return sequenceSteps(definition).map((step) => ({
    id: step.id,
    kind: step.kind,
    estimate: estimateStep(step),
    runs: step.when ? evaluateCondition(step.when, { item: value, params }, ['steps']) : true,
    ...(step.when ? { when: step.when } : {}),
  }));
}

/** What each step reserves while the item runs: its price or caps, nothing for a step the item rules out. */
export function stepReserves(steps: readonly PlannedStepEstimate[]): { reserves: number[]; unbounded: boolean } {
  return {
    reserves: steps.map((step) => (step.runs === false ? 0 : Math.max(step.estimate.usd, step.estimate.maxUsd))),
    unbounded: steps.some((step) => step.runs !== false && step.estimate.unbounded === true),
  };
}
