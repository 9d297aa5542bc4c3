import type { PlannedItem } from '../domain/pipeline-types';

// Which started items share one `runPipelineItems` activity: plain data in, plain data out, so the rule is
// tested apart from the workflow.

/** Item kinds that run as an activity (a paid call without a research task), and so can share one. */
export type BatchableKind = 'answer' | 'search' | 'contents';

/**
 * Most items of one kind in one activity. A batch reports when its slowest call ends, so its items hold
 * their window places until then: Search and Contents calls take about the same time, Answer calls
 * (streamed, as long as the answer) vary more, so their batches are smaller.
 */
export const MAX_BATCH_ITEMS: Readonly<Record<BatchableKind, number>> = { search: 25, contents: 25, answer: 5 };

/** Most bytes of requests one batch's input carries (it sits in history). */
export const MAX_BATCH_REQUEST_BYTES = 32 * 1024;

/** The kind of an item that can share an activity with others, or undefined (research tasks, `steps:` items). */
export function batchableKind(item: PlannedItem): BatchableKind | undefined {
  if (item.stepwise) return undefined;
  const kind = item.request?.kind;
  return kind === 'answer' || kind === 'search' || kind === 'contents' ? kind : undefined;
}

/**
 * How many items of `kind` one activity runs, from the run's window and start rate: at most a quarter
 * of the window (so at least four batches share it and places freed by one are filled while the others
 * run), at most a quarter-second of starts (a batch waits for no token: it starts with the tokens there
 * are, one per item), at most the kind's cap; 1 means one activity per item.
 */
export function itemBatchSize({ concurrency, ratePerSecond, kind }: { concurrency: number; ratePerSecond: number; kind: BatchableKind | undefined }): number {
  if (kind === undefined) return 1;
  return Math.max(1, Math.min(MAX_BATCH_ITEMS[kind], Math.floor(concurrency / 4), Math.floor(ratePerSecond / 4)));
}

/**
 * Items started together, waiting to be sent as one activity: `add` says whether `item` may join (same
 * kind, room left in count and bytes); a refused item starts a new group after this one is sent.
 */
export class BatchGroup {
  readonly items: PlannedItem[] = [];
  #bytes = 0;

  constructor(
    readonly kind: BatchableKind,
    readonly size: number,
  ) {}

  /** Adds `item` if it fits; false when the group must be sent first. */
  add(item: PlannedItem, requestBytes: number): boolean {
    if (this.items.length > 0 && (this.items.length >= this.size || this.#bytes + requestBytes > MAX_BATCH_REQUEST_BYTES)) return false;
    if (batchableKind(item) !== this.kind) return false;
    this.items.push(item);
    this.#bytes += requestBytes;
    return true;
  }

  /** No more room: send it now. */
  get full(): boolean {
    return this.items.length >= this.size || this.#bytes >= MAX_BATCH_REQUEST_BYTES;
  }
}
