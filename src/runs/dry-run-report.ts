import type { DryRunReport } from './dry-run';
import { formatDryRunSteps } from './dry-run-steps';

const usd = (value: number): string => `${value.toFixed(value < 1 ? 4 : 2)} USD`;

/**
 * The dry run as the command line prints it: plain lines, problems first. A run with item or input
 * problems could not start, so its figures (items, calls, cost) would mislead and are left out; a run
 * over budget prints the figures after its error, as the reason.
 */
export function formatDryRunReport(report: DryRunReport): string {
  if (report.errorCount > 0) {
    return `${[
      `pipeline ${report.pipeline}: dry run, nothing was sent or spent`,
      `error: ${report.errorCount} problem${report.errorCount === 1 ? '' : 's'}${report.errorCount > report.errors.length ? ` (first ${report.errors.length} shown)` : ''}:`,
      ...report.errors.map((error) => `  ${error}`),
      'no estimate until these are fixed: a run of this input would not start',
    ].join('\n')}\n`;
  }
  const lines = [
    `pipeline ${report.pipeline}: dry run, nothing was sent or spent`,
    ...budgetLines(report),
    `  run workflow id: ${report.runWorkflowId}`,
    `  parameters: ${
      Object.entries(report.params)
        .map(([name, value]) => `${name}=${String(value)}`)
        .join(', ') || '(none)'
    }`,
    `  items: ${report.items}`,
    ...(report.batchWorkflowId ? [`  first service batch workflow id: ${report.batchWorkflowId} (one per round of up to 10,000 tasks)`] : []),
    ...report.firstItems.map((item) => `    ${item.key}${item.workflowId ? ` -> ${item.workflowId}` : ''}`),
    ...(report.steps ? formatDryRunSteps(report.steps, report.filtered) : report.filtered > 0 ? [`  left out by input.where: ${report.filtered} rows`] : []),
    `  calls${report.steps ? ' (every step that may run, runs)' : ''}:`,
    ...Object.entries(report.estimate.calls).map(([route, count]) => `    ${route}: ${count}`),
    ...(report.estimateAtLeastUsd !== undefined && report.estimateAtLeastUsd < report.estimate.usd
      ? [`  estimated cost: from ${usd(report.estimateAtLeastUsd)} (no step that depends on earlier results runs) to the figure below (all of them run)`]
      : []),
    `  estimated cost: ${usd(report.estimate.usd)}${report.estimate.maxUsd > report.estimate.usd ? ` (up to ${usd(report.estimate.maxUsd)} with the requests' caps)` : ''}; budget ${usd(report.budgetUsd)}`,
    ...report.estimate.notes.map((note) => `    not included: ${note}`),
    ...(report.items > 0
      ? [`  reserved while an item runs: up to ${usd(report.reservePerItemUsd)} (its price plus its requests' caps; released to the actual cost when it ends)`]
      : []),
  ];
  if (report.previews > 0) lines.push(`  workflow previews: ${report.previews} (free)`);
  if (report.nextRuns) lines.push(`  next scheduled runs: ${report.nextRuns.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

/** The budget's error or warning, printed before the figures it is about. */
function budgetLines(report: DryRunReport): string[] {
  const lines: string[] = [];
  if (report.overBudget) {
    lines.push(
      report.estimate.usd > report.budgetUsd
        ? `error: estimated cost ${usd(report.estimate.usd)} exceeds budget_usd ${usd(report.budgetUsd)}`
        : `error: the run cannot finish within budget_usd ${usd(report.budgetUsd)}: at the estimated ${usd(report.estimate.usd)} its last items still need up to ${usd(report.reservePerItemUsd)} reserved each, so it would stop waiting for a raise; set budget_usd to at least ${usd(report.budgetNeededUsd)}, or lower the caps (an Answer's data_max_price defaults to 1 USD)`,
    );
  } else if (report.estimate.maxUsd > report.budgetUsd)
    lines.push(`warning: with every cap reached the run could cost ${usd(report.estimate.maxUsd)}; the budget stops it at ${usd(report.budgetUsd)}`);
  return lines;
}

/** True when the run as checked could start: no item problems and the estimate within budget. */
export function dryRunPassed(report: DryRunReport): boolean {
  return report.errorCount === 0 && !report.overBudget;
}
