import type { CreateBatchRequest } from '../api';
import { estimateItem } from '../pipelines/estimate';
import { ItemError } from '../pipelines/item-keys';
import { renderBatchConfig, renderItemRequest } from '../pipelines/render-item';
import type { ItemCursor } from '../pipelines/types';
import { addUsd, fitsBudget, reserve } from '../workflows/pipeline-budget';
import { keepLast } from '../workflows/pipeline-progress';
import type { BudgetLedger, PipelineItemRecord } from '../workflows/pipeline-types';
import type { ActivityDeps } from './deps';
import { heartbeat } from './context';
import { checkedKeyPrefix, invalidInput } from './errors';
import { itemRecordKey, keyOf, readItemRecord, readSourcePage, runContext, type PipelineRunRef } from './pipeline-items';
import type { ArtifactRef, CollectedBatchTask, StoredOutputs } from './types';

/** Most tasks one service batch of a pipeline run gets; a longer input runs as several batches, one after another. */
export const MAX_TASKS_PER_PIPELINE_BATCH = 10_000;
const READ_PAGE = 500;
/** Problems and failures a round reports (the last ones; every one is in its item's record). */
const MAX_PROBLEMS = 10;

/** Where the items of a batch round come from: the input from a cursor, or the failed tasks of the round before. */
export type BatchRoundSource =
  | { from: 'input'; cursor?: ItemCursor; skip: number }
  | { from: 'retry'; key: string; itemsKey: string; count: number; skip: number };

/** `preparePipelineBatch` input. */
export interface PreparePipelineBatchInput extends PipelineRunRef {
  /** Where this round's items come from (`source` is the run's input). */
  take: BatchRoundSource;
  /** Round number within the run (0, 1, ...): names the round's files. */
  round: number;
  /** USD the run may still reserve: tasks are taken while their prices fit. */
  budgetLeftUsd: number;
  /** At most this many tasks (default `MAX_TASKS_PER_PIPELINE_BATCH`). */
  maxTasks?: number;
}

/** A round's tasks in the store, ready for `researchBatchWorkflow` by reference. */
export interface PreparedBatchRound {
  /** The shared configuration, rendered once for the run. */
  batch: CreateBatchRequest;
  /** JSON lines of `{id, query}`; absent when no task was taken. */
  tasksRef?: { key: string; count: number };
  /** JSON lines of `{key, index, attempts}` in the same order, read back when the round is recorded. */
  itemsKey?: string;
  reservedUsd: number;
  /** Input items read (not counting retries). */
  read: number;
  /** Items an earlier execution of this run completed (`--resume`), with what they cost. */
  reused: number;
  /** Items that cannot run (a missing template variable, a repeated key): recorded as failed. */
  invalid: number;
  /** The invalid items' keys and problems (the last few; all are in their records). */
  problems: Array<{ key: string; error: string }>;
  /** Where the next round of the same source starts; `exhausted` when the source has nothing left. */
  next: BatchRoundSource;
  exhausted: boolean;
  /** The price of the next task when the budget stopped the round before the source ran out. */
  blockedUsd?: number;
}

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

interface RoundItem {
  key: string;
  index: number;
  attempts: number;
}

const roundKey = (prefix: string, round: number, name: string): string => `${prefix}/batch-rounds/${round}-${name}.jsonl`;
const lines = (values: unknown[]): string => values.map((value) => `${JSON.stringify(value)}\n`).join('');

/** How a collected batch task ends as a pipeline item. */
export function batchItemStatus(task: CollectedBatchTask | undefined, cancelled: boolean): 'completed' | 'failed' | 'cancelled' {
  if (task?.status === 'completed') return 'completed';
  if (task?.status === 'cancelled') return 'cancelled';
  if (task?.status === 'failed') return 'failed';
  return cancelled ? 'cancelled' : 'failed';
}

/** Activities that run a pipeline's `batch` step: write a round's tasks to the store, then record what the batch did. */
export function pipelineBatchActivities(deps: ActivityDeps) {
  const { store } = deps;

  async function readLines(key: string): Promise<unknown[]> {
    const text = Buffer.from(await store.get(key)).toString('utf8');
    return text.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as unknown);
  }

  const previousRecord = (prefix: string, key: string) => readItemRecord(store, prefix, key);

  const writeRecord = async (prefix: string, record: PipelineItemRecord): Promise<void> => {
    await store.put(itemRecordKey(prefix, record.key), `${JSON.stringify(record, null, 2)}\n`, 'application/json');
  };

  /**
   * Takes the next round's tasks from the input (or the previous round's failures), rendering each item
   * with the batch step's query and checking it, while their prices fit `budgetLeftUsd`. The tasks go to
   * the store as JSON lines, so the batch workflow's history never holds the queries. Items that cannot
   * run are recorded as failed here; items an earlier execution completed are skipped.
   */
  async function preparePipelineBatch(input: PreparePipelineBatchInput): Promise<PreparedBatchRound> {
    const prefix = checkedKeyPrefix(input.prefix);
    const context = runContext(input);
    let batch: CreateBatchRequest | undefined;
    try {
      batch = renderBatchConfig(input.definition, context);
    } catch (error) {
      if (error instanceof ItemError) throw invalidInput(error.message);
      throw error;
    }
    if (!batch) throw invalidInput('preparePipelineBatch runs definitions whose step is batch');
    const maxTasks = Math.max(1, Math.min(input.maxTasks ?? MAX_TASKS_PER_PIPELINE_BATCH, MAX_TASKS_PER_PIPELINE_BATCH));
    const tasks: Array<{ id: string; query: string }> = [];
    const items: RoundItem[] = [];
    const taken = new Set<string>();
    let problems: PreparedBatchRound['problems'] = [];
    // The round's own ledger: what is left of the run's budget, and what its tasks hold.
    let ledger: BudgetLedger = { budgetUsd: input.budgetLeftUsd, spentUsd: 0, reservedUsd: 0 };
    let read = 0;
    let reused = 0;
    let invalid = 0;
    let blockedUsd: number | undefined;
    /** Holds `priceUsd` for a task when it fits; otherwise notes the price the round stopped at. */
    const hold = (priceUsd: number): boolean => {
      if (!fitsBudget(ledger, priceUsd)) {
        blockedUsd = priceUsd;
        return false;
      }
      ledger = reserve(ledger, priceUsd);
      return true;
    };
    const refuse = async (key: string, index: number, error: string): Promise<void> => {
      invalid += 1;
      problems = keepLast(problems, { key, error }, MAX_PROBLEMS);
      await writeRecord(prefix, { key, index, status: 'failed', attempts: 0, costUsd: 0, error, finishedAt: Date.now() });
    };

    const take = input.take;
    if (take.from === 'retry') {
      const source = take;
      const [queued, queries] = await Promise.all([readLines(source.itemsKey), readLines(source.key)]);
      let position = source.skip;
      for (; position < source.count && tasks.length < maxTasks; position += 1) {
        const item = queued[position] as RoundItem;
        const task = queries[position] as { id: string; query: string };
        const price = estimateItem({ kind: 'batch', task, ...(batch.mode ? { mode: batch.mode } : {}) }).usd;
        if (!hold(price)) break;
        tasks.push(task);
        items.push(item);
      }
      const exhausted = position >= source.count;
      return finishRound({ ...source, skip: position }, exhausted);
    }

    let cursor = take.cursor;
    let position = take.skip;
    let next: BatchRoundSource | undefined;
    let exhausted = false;
    while (next === undefined) {
      const page = await readSourcePage(input.source, cursor, READ_PAGE);
      for (; position < page.items.length; position += 1) {
        if (tasks.length >= maxTasks) break;
        const item = page.items[position]!;
        const { key, problem } = keyOf(input.definition, input.source, item, context);
        if (problem) {
          await refuse(key, item.index, problem);
        } else if (taken.has(key)) {
          // The first item with this key owns its record; the repeat is counted and named, not run.
          invalid += 1;
          problems = keepLast(problems, { key, error: `${item.where}: item key "${key}" repeats an earlier item's key (keys must be unique within a run)` }, MAX_PROBLEMS);
        } else if ((await previousRecord(prefix, key))?.status === 'completed') {
          reused += 1;
        } else {
          let task: { id: string; query: string };
          try {
            const request = renderItemRequest(input.definition, { ...item, key }, context);
            if (request.kind !== 'batch') throw invalidInput('preparePipelineBatch runs definitions whose step is batch');
            task = request.task;
          } catch (error) {
            if (!(error instanceof ItemError)) throw error;
            await refuse(key, item.index, error.message);
            read += 1;
            continue;
          }
          const price = estimateItem({ kind: 'batch', task, ...(batch.mode ? { mode: batch.mode } : {}) }).usd;
          if (!hold(price)) break;
          taken.add(key);
          tasks.push(task);
          items.push({ key, index: item.index, attempts: 1 });
        }
        read += 1;
      }
      if (position < page.items.length) {
        next = { from: 'input', ...(cursor ? { cursor } : {}), skip: position };
      } else if (page.done) {
        exhausted = true;
        next = { from: 'input', cursor: page.cursor, skip: 0 };
      } else {
        cursor = page.cursor;
        position = 0;
        heartbeat({ round: input.round, read, tasks: tasks.length });
      }
    }
    return finishRound(next, exhausted);

    async function finishRound(next: BatchRoundSource, exhausted: boolean): Promise<PreparedBatchRound> {
      const round = { batch: batch!, read, reused, invalid, problems, next, exhausted, ...(blockedUsd !== undefined && !exhausted ? { blockedUsd } : {}) };
      if (tasks.length === 0) return { ...round, reservedUsd: 0 };
      const [tasksRef] = await Promise.all([
        store.put(roundKey(prefix, input.round, 'tasks'), lines(tasks), 'application/x-ndjson'),
        store.put(roundKey(prefix, input.round, 'items'), lines(items), 'application/x-ndjson'),
      ]);
      return { ...round, tasksRef: { key: tasksRef.key, count: tasks.length }, itemsKey: roundKey(prefix, input.round, 'items'), reservedUsd: ledger.reservedUsd };
    }
  }

  /**
   * Records every task of a finished (or cancelled) round as its item: what the batch collected, its
   * cost and outputs. Failed tasks with attempts left are recorded as failed and go to the next round's
   * retry list (ids and queries copied from this round's tasks); only final outcomes are counted.
   */
  async function recordPipelineBatch(input: RecordPipelineBatchInput): Promise<RecordedBatchRound> {
    const prefix = checkedKeyPrefix(input.prefix);
    const [items, queries] = await Promise.all([readLines(input.itemsKey), readLines(input.tasksKey)]) as [RoundItem[], Array<{ id: string; query: string }>];
    const collected = new Map<string, CollectedBatchTask>();
    for (const manifest of input.manifests) {
      for (const task of await readLines(manifest.key) as CollectedBatchTask[]) if (task.batchTaskId !== undefined) collected.set(task.batchTaskId, task);
    }
    const summary: RecordedBatchRound = { completed: 0, failed: 0, cancelled: 0, costUsd: 0, failures: [] };
    const retryItems: RoundItem[] = [];
    const retryTasks: Array<{ id: string; query: string }> = [];
    for (const [position, item] of items.entries()) {
      const task = collected.get(item.key);
      const status = batchItemStatus(task, input.cancelled);
      const costUsd = task?.cost ?? 0;
      summary.costUsd = addUsd(summary.costUsd, costUsd);
      const error = status === 'completed' ? undefined
        : task ? (task.error ?? `the service reported the task ${task.status}`)
          : (input.batchError ?? (input.cancelled ? 'the run was cancelled before the batch finished this task' : 'the batch did not report this task'));
      const outputs: StoredOutputs | undefined = task ? {
        status: task.status, deliverables: [], images: [], sourceCount: task.sourceCount,
        ...(task.report ? { report: task.report } : {}), ...(task.sources ? { sources: task.sources } : {}),
        ...(task.cost !== undefined ? { cost: task.cost } : {}), ...(task.error !== undefined ? { error: task.error } : {}),
      } : undefined;
      // Every task is recorded now, a failure too: if the run stops before its retry, the record stands.
      await writeRecord(prefix, {
        key: item.key, index: item.index, status, attempts: item.attempts, costUsd, workflowId: input.workflowId, finishedAt: Date.now(),
        ...(outputs ? { outputs } : {}), ...(error !== undefined ? { error } : {}),
      });
      if (status === 'failed' && !input.cancelled && item.attempts < input.maxAttempts) {
        retryItems.push({ ...item, attempts: item.attempts + 1 });
        retryTasks.push(queries[position]!);
      } else {
        summary[status] += 1;
        if (status === 'failed') summary.failures = keepLast(summary.failures, { key: item.key, error: error!, attempts: item.attempts }, MAX_PROBLEMS);
      }
      if (position % 200 === 199) heartbeat({ round: input.round, recorded: position + 1 });
    }
    if (retryItems.length > 0) {
      const itemsRef = await store.put(roundKey(prefix, input.round, 'retry-items'), lines(retryItems), 'application/x-ndjson');
      const tasksRef = await store.put(roundKey(prefix, input.round, 'retry-tasks'), lines(retryTasks), 'application/x-ndjson');
      summary.retry = { key: tasksRef.key, itemsKey: itemsRef.key, count: retryTasks.length };
    }
    return summary;
  }

  return { preparePipelineBatch, recordPipelineBatch };
}
