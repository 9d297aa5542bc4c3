import type { BatchCounts, BatchStatus } from '../../api/schemas/batches';
import type { TaskStatus } from '../../api/schemas/tasks';
import type { TaskConfig } from './task-record';

/** A batch: shared configuration, its tasks in the order added, and counts kept up to date on every change. */
export interface BatchRecord {
  readonly id: string;
  readonly organization: string;
  readonly name?: string;
  readonly config: TaskConfig;
  readonly search?: Record<string, unknown>;
  readonly metadata?: Record<string, unknown>;
  readonly createdAt: number;
  readonly webhookUrl?: string;
  readonly webhookSecret?: string;
  status: BatchStatus;
  /** Task ids in the order they were added (the listing order). */
  readonly taskIds: string[];
  /** Position of each task id in `taskIds`, for `last_key` cursors. */
  readonly positions: Map<string, number>;
  /** Caller-chosen ids already used in this batch. */
  readonly keys: Set<string>;
  readonly counts: BatchCounts;
  costUsd: number;
  finishedAt?: number;
}

type CountedStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
const COUNTED: ReadonlySet<string> = new Set<CountedStatus>(['queued', 'running', 'completed', 'failed', 'cancelled']);

function isCounted(status: TaskStatus | undefined): status is CountedStatus {
  return status !== undefined && COUNTED.has(status);
}

/** Moves one task between count buckets; a task new to the batch (`from` undefined) adds to `total`. */
export function recount(counts: BatchCounts, from: TaskStatus | undefined, to: TaskStatus): void {
  if (from === undefined) counts.total += 1;
  if (isCounted(from)) counts[from] -= 1;
  if (isCounted(to)) counts[to] += 1;
}

/** True when every task of a non-empty batch has stopped. */
export function allStopped(counts: BatchCounts): boolean {
  return counts.total > 0 && counts.completed + counts.failed + counts.cancelled === counts.total;
}

/** Empty counts. */
export function emptyCounts(): BatchCounts {
  return { total: 0, queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
}
