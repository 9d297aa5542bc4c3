import { addUsd } from '../domain/budget';
import { keepLast } from '../domain/keep-last';
import type { ActivityDeps } from './deps';
import { heartbeat } from './context';
import { checkedKeyPrefix } from './errors';
import { jsonLines, MAX_ROUND_PROBLEMS, readJsonLines, roundKey, writeRoundRecord, type RoundItem, type RoundTask } from './pipeline-batch-rounds';
import type { ArtifactStore } from './store';
import type { CollectedBatchTask } from './types';
import type { ArtifactRef, StoredOutputs } from '../domain/artifacts';

/** `recordPipelineBatch` input. */
export interface RecordPipelineBatchInput {
  prefix: string;
  round: number;
  itemsKey: string;
  tasksKey: string;
  /** The batch workflow's id and what it collected (one JSON-lines manifest of `CollectedBatchTask` per page). */
  workflowId: string;
  manifests: ArtifactRef[];
  /** The run was cancelled: tasks the batch did not finish are recorded as cancelled. */
  cancelled: boolean;
  /** Attempts an item may make in all (1 + the definition's `retries`). */
  maxAttempts: number;
  /** Why the batch workflow itself failed, if it did: its tasks that were not collected failed with this. */
  batchError?: string;
}

/** What a recorded round adds up to; failed tasks with attempts left go to `retry`. */
export interface RecordedBatchRound {
  completed: number;
  failed: number;
  cancelled: number;
  costUsd: number;
  failures: Array<{ key: string; error: string; attempts: number }>;
  retry?: { key: string; itemsKey: string; count: number };
}

/** How a collected batch task ends as a pipeline item. */
export function batchItemStatus(task: CollectedBatchTask | undefined, cancelled: boolean): 'completed' | 'failed' | 'cancelled' {
  if (task?.status === 'completed') return 'completed';
  if (task?.status === 'cancelled') return 'cancelled';
  if (task?.status === 'failed') return 'failed';
  return cancelled ? 'cancelled' : 'failed';
}

/** Why a task that did not complete ended so, as its item's record says. */
function batchItemError(task: CollectedBatchTask | undefined, input: RecordPipelineBatchInput): string {
  if (task) return task.error ?? `the service reported the task ${task.status}`;
  return input.batchError ?? (input.cancelled ? 'the run was cancelled before the batch finished this task' : 'the batch did not report this task');
}

/** What a collected task stored, as its item's outputs. */
function batchItemOutputs(task: CollectedBatchTask): StoredOutputs {
  return {
    status: task.status,
    deliverables: [],
    images: [],
    sourceCount: task.sourceCount,
    ...(task.report ? { report: task.report } : {}),
    ...(task.sources ? { sources: task.sources } : {}),
    ...(task.cost !== undefined ? { cost: task.cost } : {}),
    ...(task.error !== undefined ? { error: task.error } : {}),
  };
}

/**
 * Records every task of a finished (or cancelled) round as its item: what the batch collected, its
 * cost and outputs. Failed tasks with attempts left are recorded as failed and go to the next round's
 * retry list (ids and queries copied from this round's tasks); only final outcomes are counted.
 */
export async function recordPipelineBatch(store: ArtifactStore, input: RecordPipelineBatchInput): Promise<RecordedBatchRound> {
  const prefix = checkedKeyPrefix(input.prefix);
  const [items, queries] = (await Promise.all([readJsonLines(store, input.itemsKey), readJsonLines(store, input.tasksKey)])) as [RoundItem[], RoundTask[]];
  const collected = new Map<string, CollectedBatchTask>();
  for (const manifest of input.manifests) {
    for (const task of (await readJsonLines(store, manifest.key)) as CollectedBatchTask[])
      if (task.batchTaskId !== undefined) collected.set(task.batchTaskId, task);
  }
  const summary: RecordedBatchRound = { completed: 0, failed: 0, cancelled: 0, costUsd: 0, failures: [] };
  const retryItems: RoundItem[] = [];
  const retryTasks: RoundTask[] = [];
  for (const [position, item] of items.entries()) {
    const task = collected.get(item.key);
    const status = batchItemStatus(task, input.cancelled);
    const costUsd = task?.cost ?? 0;
    summary.costUsd = addUsd(summary.costUsd, costUsd);
    const error = status === 'completed' ? undefined : batchItemError(task, input);
    // Every task is recorded now, a failure too: if the run stops before its retry, the record stands.
    await writeRoundRecord(store, prefix, {
      key: item.key,
      index: item.index,
      status,
      attempts: item.attempts,
      costUsd,
      workflowId: input.workflowId,
      finishedAt: Date.now(),
      ...(task ? { outputs: batchItemOutputs(task) } : {}),
      ...(error !== undefined ? { error } : {}),
    });
    if (status === 'failed' && !input.cancelled && item.attempts < input.maxAttempts) {
      retryItems.push({ ...item, attempts: item.attempts + 1 });
      retryTasks.push(queries[position]!);
    } else {
      summary[status] += 1;
      if (status === 'failed') summary.failures = keepLast(summary.failures, { key: item.key, error: error!, attempts: item.attempts }, MAX_ROUND_PROBLEMS);
    }
    if (position % 200 === 199) heartbeat({ round: input.round, recorded: position + 1 });
  }
  if (retryItems.length > 0) {
    const itemsRef = await store.put(roundKey(prefix, input.round, 'retry-items'), jsonLines(retryItems), 'application/x-ndjson');
    const tasksRef = await store.put(roundKey(prefix, input.round, 'retry-tasks'), jsonLines(retryTasks), 'application/x-ndjson');
    summary.retry = { key: tasksRef.key, itemsKey: itemsRef.key, count: retryTasks.length };
  }
  return summary;
}

/** The activity that records a `batch` step's round once its service batch ended. */
export function pipelineBatchRecordActivities({ store }: ActivityDeps) {
  return { recordPipelineBatch: (input: RecordPipelineBatchInput) => recordPipelineBatch(store, input) };
}
