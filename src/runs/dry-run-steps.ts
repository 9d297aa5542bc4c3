import { describeCondition } from '../pipelines/condition';
import { sumEstimates } from '../pipelines/estimate';
import type { PlannedStepEstimate } from '../pipelines/step-plan';
import type { CostEstimate } from '../pipelines/types';

/**
 * One step of a `steps:` pipeline in a dry run: how many items surely run it, how many may (their
 * `when:` reads earlier results, unknown before the run), how many skip it, and what each group costs.
 */
export interface DryRunStep {
  id: string;
  kind: string;
  /** The step's `when:` in words. */
  when?: string;
  /** Items that run the step whatever earlier steps return. */
  runs: number;
  /** Items whose `when:` depends on earlier results: they may run it or skip it. */
  maybe: number;
  /** Items whose `when:` is already false from the item and parameters: skipped, nothing paid. */
  skipped: number;
  /** Calls and cost of the items that surely run it. */
  estimate: CostEstimate;
  /** Calls and cost of the items that may run it (the top of the range). */
  maybeEstimate: CostEstimate;
}

/** Adds up the steps of a dry run, item by item. */
export class DryRunStepTally {
  readonly #steps: Array<DryRunStep & { sure: CostEstimate[]; possible: CostEstimate[] }> = [];

  /** Adds one item's planned steps (`planSteps`). */
  add(planned: readonly PlannedStepEstimate[]): void {
    planned.forEach((step, index) => {
      const entry = (this.#steps[index] ??= {
        id: step.id,
        kind: step.kind,
        ...(step.when ? { when: describeCondition(step.when) } : {}),
        runs: 0,
        maybe: 0,
        skipped: 0,
        estimate: sumEstimates([]),
        maybeEstimate: sumEstimates([]),
        sure: [],
        possible: [],
      });
      if (step.runs === true) {
        entry.runs += 1;
        entry.sure.push(step.estimate);
      } else if (step.runs === undefined) {
        entry.maybe += 1;
        entry.possible.push(step.estimate);
      } else entry.skipped += 1;
    });
  }

  /** The steps with their sums. */
  steps(): DryRunStep[] {
    return this.#steps.map(({ sure, possible, ...step }) => ({ ...step, estimate: sumEstimates(sure), maybeEstimate: sumEstimates(possible) }));
  }

  /** What the items cost if every step that may run does (the top of the range: what the budget must allow). */
  total(): CostEstimate {
    return sumEstimates(this.#steps.flatMap((step) => [...step.sure, ...step.possible]));
  }

  /** What the items cost if no step whose `when:` depends on results runs (the bottom of the range). */
  surelyUsd(): number {
    return sumEstimates(this.#steps.flatMap((step) => step.sure)).usd;
  }
}

const usd = (value: number): string => `${value.toFixed(value < 1 ? 4 : 2)} USD`;
const calls = (estimate: CostEstimate): string =>
  Object.entries(estimate.calls)
    .map(([route, count]) => `${route}: ${count}`)
    .join(', ') || 'no calls';

/** The per-step lines of a dry run's report. */
export function formatDryRunSteps(steps: readonly DryRunStep[], filtered: number): string[] {
  const lines = ['  steps (each item runs them in order):'];
  for (const step of steps) {
    const price = (estimate: CostEstimate): string =>
      `${usd(estimate.usd)}${estimate.maxUsd > estimate.usd ? ` (up to ${usd(estimate.maxUsd)} with the requests' caps)` : ''}`;
    lines.push(`    ${step.id} (${step.kind})${step.when ? ` when ${step.when}` : ''}:`);
    lines.push(`      runs for ${step.runs} item${step.runs === 1 ? '' : 's'}: ${calls(step.estimate)}; ${price(step.estimate)}`);
    if (step.maybe > 0)
      lines.push(
        `      depends on earlier results for ${step.maybe} item${step.maybe === 1 ? '' : 's'}: 0 to ${calls(step.maybeEstimate)}; 0 to ${usd(step.maybeEstimate.maxUsd)}`,
      );
    if (step.skipped > 0) lines.push(`      skipped for ${step.skipped} item${step.skipped === 1 ? '' : 's'} (when: does not hold; nothing is paid)`);
  }
  if (filtered > 0) lines.push(`  left out by input.where: ${filtered} row${filtered === 1 ? '' : 's'} (never keyed, priced or run)`);
  return lines;
}
