import { batchLimitProblem, NOT_IN_BATCHES } from '../shared/batch-limits';
import type { BatchStatus } from '../api/schemas';
import type { ResearchBatchState } from './types';

/** The service takes at most this many tasks per add-tasks call. */
export const MAX_TASKS_PER_ADD = 100;

/** Every reason a batch request cannot go to the service (empty when it can). */
export function batchInputProblems(
  batch: Record<string, unknown>,
  tasks: ReadonlyArray<{ id?: unknown; query?: unknown }>,
  tasksRef?: { key?: unknown; count?: unknown },
): string[] {
  const problems: string[] = [];
  for (const field of Object.keys(NOT_IN_BATCHES)) {
    if (batch[field] !== undefined) problems.push(`batch.${field}: ${batchLimitProblem(field)}`);
  }
  if (tasksRef !== undefined) {
    // The lines themselves are checked by the add activity, which reads them.
    if (tasks.length > 0) problems.push('tasks: give the tasks inline or by tasksRef, not both');
    if (typeof tasksRef.key !== 'string' || tasksRef.key === '') problems.push('tasksRef.key: must be the artifact key of a JSON-lines task list');
    if (typeof tasksRef.count !== 'number' || !Number.isInteger(tasksRef.count) || tasksRef.count < 1)
      problems.push('tasksRef.count: must be a whole number of tasks, at least 1');
    return problems;
  }
  if (tasks.length === 0) problems.push('tasks: a batch needs at least one task');
  const seen = new Set<string>();
  tasks.forEach((task, index) => {
    if (typeof task.id !== 'string' || task.id === '') problems.push(`tasks[${index}].id: must be a non-empty string`);
    else if (seen.has(task.id)) problems.push(`tasks[${index}].id: duplicate id "${task.id}"`);
    else seen.add(task.id);
    if (typeof task.query !== 'string' || task.query.trim() === '') problems.push(`tasks[${index}].query: must be non-empty text`);
    else if (task.query.length > 25_000) problems.push(`tasks[${index}].query: at most 25,000 characters`);
  });
  return problems;
}

/** Splits tasks into add-tasks calls of at most 100. */
export function chunk<T>(items: readonly T[], size = MAX_TASKS_PER_ADD): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/** Batch states after which nothing changes. */
export function isBatchFinished(status: BatchStatus): boolean {
  return status === 'completed' || status === 'completed_with_errors' || status === 'cancelled';
}

/** Delay before the next batch poll: 10 s at first (as the service's own client), growing to a cap. */
export function nextBatchPollDelayMs(input: {
  elapsedMs: number;
  webhookConfigured: boolean;
  overrides?: { initialDelayMs?: number; maxDelayMs?: number };
}): number {
  const initial = input.overrides?.initialDelayMs ?? 10_000;
  const max = Math.max(initial, input.overrides?.maxDelayMs ?? 120_000);
  const adaptive = Math.min(max, Math.max(initial, Math.round(input.elapsedMs / 10)));
  return input.webhookConfigured ? Math.min(max * 4, adaptive * 4) : adaptive;
}

/** The batch workflow's current details in the Temporal UI (Markdown): phase, batch, tasks added, counts, and why it waits. */
export function batchRunDetails(state: Pick<ResearchBatchState, 'phase' | 'batchId' | 'counts' | 'detail' | 'tasksAdded' | 'tasksTotal'>): string {
  const counts = state.counts ? ` · ${state.counts.completed}/${state.counts.total} completed, ${state.counts.failed} failed` : '';
  const detail = state.detail ? `\n\n${state.detail}` : '';
  return `**${state.phase}** · batch \`${state.batchId ?? '…'}\` · ${state.tasksAdded}/${state.tasksTotal} added${counts}${detail}`;
}

/** Collected batch tasks kept in the result itself; every task is in the page manifests either way. */
export const MAX_INLINE_BATCH_TASKS = 500;
