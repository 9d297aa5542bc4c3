import type { ItemRequest } from '../pipelines/render-item';
import type { PlannedItem } from '../domain/pipeline-types';

/** The run a child workflow belongs to, as its summary and details in the Temporal UI name it. */
export interface RunIdentity {
  pipeline: string;
  runKey: string;
  /** The run's workflow id. */
  workflowId: string;
}

/** The one line the UI lists a child of the run under: pipeline, run, then what the child is. */
function summary(run: RunIdentity, what: string): string {
  return `${run.pipeline} · run ${run.runKey} · ${what}`;
}

/** A child's static details (Markdown): the run it comes from, then what it runs. */
function details(run: RunIdentity, what: string): string {
  return `pipeline **${run.pipeline}**, run \`${run.runKey}\` (workflow \`${run.workflowId}\`)\n\n${what}`;
}

/** The summary of an item's research task workflow. */
export function itemSummary(run: RunIdentity, item: PlannedItem, attempt: number): string {
  return summary(run, `item ${item.key} (attempt ${attempt})`);
}

/** The details of an item's research task workflow: where the item comes from, what it runs, what it reserves. */
export function itemDetails(run: RunIdentity, item: PlannedItem, request: Extract<ItemRequest, { kind: 'deepresearch' | 'workflow' }>): string {
  const runs = request.kind === 'workflow' ? `service workflow ${request.preview.slug}` : `DeepResearch ${request.request.mode ?? 'standard'}`;
  return details(run, `item \`${item.key}\` (${item.where}) · ${runs} · ${item.reserveUsd} USD reserved`);
}

/** The summary of a service batch workflow of the run (rounds count from 1). */
export function batchSummary(run: RunIdentity, round: number, tasks: number): string {
  return summary(run, `service batch ${round} (${tasks} tasks)`);
}

/** The details of a service batch workflow of the run: its tasks, their mode, what they reserve. */
export function batchDetails(run: RunIdentity, round: number, batch: { tasks: number; mode?: string; reservedUsd: number }): string {
  return details(run, `service batch ${round}: ${batch.tasks} tasks${batch.mode ? `, mode ${batch.mode}` : ''}, ${batch.reservedUsd} USD reserved`);
}

/** The summary of the run's synthesis research task. */
export function synthesisSummary(run: RunIdentity): string {
  return summary(run, 'synthesis');
}
