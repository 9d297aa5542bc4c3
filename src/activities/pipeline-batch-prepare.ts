import type { CreateBatchRequest } from '../api';
import { estimateItem } from '../pipelines/estimate';
import { ItemError } from '../pipelines/item-keys';
import { renderBatchConfig, renderItemRequest } from '../pipelines/render-item';
import type { RunContext } from '../pipelines/types';
import { fitsBudget, reserve } from '../domain/budget';
import { keepLast } from '../domain/keep-last';
import type { BudgetLedger } from '../domain/pipeline-types';
import type { ActivityDeps } from './deps';
import { heartbeat } from './context';
import { checkedKeyPrefix, invalidInput } from './errors';
import {
  jsonLines,
  MAX_ROUND_PROBLEMS,
  readJsonLines,
  roundKey,
  writeRoundRecord,
  type BatchRoundSource,
  type RoundItem,
  type RoundTask,
} from './pipeline-batch-rounds';
import { keptByWhere } from '../pipelines/step-plan';
import { keyOf, readItemRecord, readSourcePage, runContext, type PipelineRunRef } from './pipeline-items';
import type { ArtifactStore } from './store';

/** Most tasks one service batch of a pipeline run gets; a longer input runs as several batches, one after another. */
export const MAX_TASKS_PER_PIPELINE_BATCH = 10_000;
/** Input items read per page while taking a round. */
const READ_PAGE = 500;

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

/** Where a round's source goes on, and whether it has nothing left. */
interface TakenUpTo {
  next: BatchRoundSource;
  exhausted: boolean;
}

/** A round being taken: its tasks, the budget they hold, and the items read, reused and refused on the way. */
class RoundTaking {
  readonly tasks: RoundTask[] = [];
  readonly items: RoundItem[] = [];
  /** Keys taken into this round, so a repeat in the input is refused rather than run twice. */
  readonly keys = new Set<string>();
  problems: PreparedBatchRound['problems'] = [];
  read = 0;
  reused = 0;
  invalid = 0;
  /** The price the round stopped at, when the budget stopped it. */
  blockedUsd?: number;
  /** The round's own ledger: what is left of the run's budget, and what its tasks hold. */
  #ledger: BudgetLedger;

  constructor(
    budgetLeftUsd: number,
    readonly maxTasks: number,
    readonly batch: CreateBatchRequest,
    private readonly refused: (key: string, index: number, error: string) => Promise<void>,
  ) {
    this.#ledger = { budgetUsd: budgetLeftUsd, spentUsd: 0, reservedUsd: 0 };
  }

  get full(): boolean {
    return this.tasks.length >= this.maxTasks;
  }

  get reservedUsd(): number {
    return this.#ledger.reservedUsd;
  }

  /** Takes a task when its price fits what is left of the budget; otherwise notes the price the round stopped at. */
  take(task: RoundTask, item: RoundItem): boolean {
    const priceUsd = estimateItem({ kind: 'batch', task, ...(this.batch.mode ? { mode: this.batch.mode } : {}) }).usd;
    if (!fitsBudget(this.#ledger, priceUsd)) {
      this.blockedUsd = priceUsd;
      return false;
    }
    this.#ledger = reserve(this.#ledger, priceUsd);
    this.tasks.push(task);
    this.items.push(item);
    return true;
  }

  /** Records an item that cannot run as failed, spending nothing. */
  async refuse(key: string, index: number, error: string): Promise<void> {
    this.invalid += 1;
    this.problems = keepLast(this.problems, { key, error }, MAX_ROUND_PROBLEMS);
    await this.refused(key, index, error);
  }

  /** Counts an item whose key an earlier item of the round has: the first owns the record; the repeat is named, not run. */
  repeat(key: string, where: string): void {
    this.invalid += 1;
    this.problems = keepLast(
      this.problems,
      { key, error: `${where}: item key "${key}" repeats an earlier item's key (keys must be unique within a run)` },
      MAX_ROUND_PROBLEMS,
    );
  }
}

/** The batch step's shared configuration, rendered once for the run; a template problem is the input's. */
function batchConfig(input: PreparePipelineBatchInput, context: RunContext): CreateBatchRequest {
  let batch: CreateBatchRequest | undefined;
  try {
    batch = renderBatchConfig(input.definition, context);
  } catch (error) {
    if (error instanceof ItemError) throw invalidInput(error.message);
    throw error;
  }
  if (!batch) throw invalidInput('preparePipelineBatch runs definitions whose step is batch');
  return batch;
}

/** Takes the failed tasks of the round before, from where the last round of them stopped. */
async function takeRetries(store: ArtifactStore, round: RoundTaking, source: Extract<BatchRoundSource, { from: 'retry' }>): Promise<TakenUpTo> {
  const [queued, queries] = await Promise.all([readJsonLines(store, source.itemsKey), readJsonLines(store, source.key)]);
  let position = source.skip;
  for (; position < source.count && !round.full; position += 1) {
    if (!round.take(queries[position] as RoundTask, queued[position] as RoundItem)) break;
  }
  return { next: { ...source, skip: position }, exhausted: position >= source.count };
}

/** Takes input items from the cursor: each keyed, checked against earlier executions' records, rendered and priced. */
async function takeInput(store: ArtifactStore, round: RoundTaking, input: PreparePipelineBatchInput, prefix: string, context: RunContext): Promise<TakenUpTo> {
  const take = input.take as Extract<BatchRoundSource, { from: 'input' }>;
  let cursor = take.cursor;
  let position = take.skip;
  for (;;) {
    const page = await readSourcePage(input.source, cursor, READ_PAGE);
    for (; position < page.items.length; position += 1) {
      if (round.full) break;
      const item = page.items[position]!;
      // Rows `input.where:` leaves out are never keyed, priced or sent.
      if (!keptByWhere(input.definition, item.value, context.params)) continue;
      const { key, problem } = keyOf(input.definition, input.source, item, context);
      if (problem) {
        await round.refuse(key, item.index, problem);
      } else if (round.keys.has(key)) {
        round.repeat(key, item.where);
      } else if ((await readItemRecord(store, prefix, key))?.status === 'completed') {
        round.reused += 1;
      } else {
        let task: RoundTask;
        try {
          const request = renderItemRequest(input.definition, { ...item, key }, context);
          if (request.kind !== 'batch') throw invalidInput('preparePipelineBatch runs definitions whose step is batch');
          task = request.task;
        } catch (error) {
          if (!(error instanceof ItemError)) throw error;
          await round.refuse(key, item.index, error.message);
          round.read += 1;
          continue;
        }
        if (!round.take(task, { key, index: item.index, attempts: 1 })) break;
        round.keys.add(key);
      }
      round.read += 1;
    }
    if (position < page.items.length) return { next: { from: 'input', ...(cursor ? { cursor } : {}), skip: position }, exhausted: false };
    if (page.done) return { next: { from: 'input', cursor: page.cursor, skip: 0 }, exhausted: true };
    cursor = page.cursor;
    position = 0;
    heartbeat({ round: input.round, read: round.read, tasks: round.tasks.length });
  }
}

/**
 * Takes the next round's tasks from the input (or the previous round's failures), rendering each item
 * with the batch step's query and checking it, while their prices fit `budgetLeftUsd`. The tasks go to
 * the store as JSON lines, so the batch workflow's history never holds the queries. Items that cannot
 * run are recorded as failed here; items an earlier execution completed are skipped.
 */
export async function preparePipelineBatch(store: ArtifactStore, input: PreparePipelineBatchInput): Promise<PreparedBatchRound> {
  const prefix = checkedKeyPrefix(input.prefix);
  const context = runContext(input);
  const batch = batchConfig(input, context);
  const maxTasks = Math.max(1, Math.min(input.maxTasks ?? MAX_TASKS_PER_PIPELINE_BATCH, MAX_TASKS_PER_PIPELINE_BATCH));
  const round = new RoundTaking(input.budgetLeftUsd, maxTasks, batch, (key, index, error) =>
    writeRoundRecord(store, prefix, { key, index, status: 'failed', attempts: 0, costUsd: 0, error, finishedAt: Date.now() }),
  );
  const { next, exhausted } = input.take.from === 'retry' ? await takeRetries(store, round, input.take) : await takeInput(store, round, input, prefix, context);
  const { read, reused, invalid, problems, blockedUsd } = round;
  const prepared = { batch, read, reused, invalid, problems, next, exhausted, ...(blockedUsd !== undefined && !exhausted ? { blockedUsd } : {}) };
  if (round.tasks.length === 0) return { ...prepared, reservedUsd: 0 };
  const [tasksRef] = await Promise.all([
    store.put(roundKey(prefix, input.round, 'tasks'), jsonLines(round.tasks), 'application/x-ndjson'),
    store.put(roundKey(prefix, input.round, 'items'), jsonLines(round.items), 'application/x-ndjson'),
  ]);
  return {
    ...prepared,
    tasksRef: { key: tasksRef.key, count: round.tasks.length },
    itemsKey: roundKey(prefix, input.round, 'items'),
    reservedUsd: round.reservedUsd,
  };
}

/** The activity that writes a `batch` step's next round to the store. */
export function pipelineBatchPrepareActivities({ store }: ActivityDeps) {
  return { preparePipelineBatch: (input: PreparePipelineBatchInput) => preparePipelineBatch(store, input) };
}
