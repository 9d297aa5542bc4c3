import type { WaitCause } from './pipeline-window';

/** Waits that last until an operator acts: a pause, a 402, a budget that nothing in flight can free. */
const HOLDS: ReadonlySet<WaitCause> = new Set<WaitCause>(['paused', 'credits_exhausted', 'budget_blocked']);

/** How long an ended item's record (and its SQL rows) may wait for more to write with it, once the run looks again. */
export const ROWS_LAG_MS = 30_000;

/** What `rowsDue` looks at: the records waiting to be written, and the window's wait. */
export interface RowsView {
  /** Records waiting to be written. */
  pending: number;
  /** When the oldest of them ended. */
  oldestEndedAt?: number;
  /** Why the window starts nothing now, if it does not. */
  wait?: WaitCause;
  now: number;
}

/**
 * Whether a run with SQL sinks writes its waiting records (and their rows) now, though fewer than a
 * chunk: when the run holds until an operator acts (the rows of what settled must not wait for that),
 * or when the oldest waited `ROWS_LAG_MS`. Otherwise records go in chunks, as in every run.
 */
export function rowsDue(view: RowsView): boolean {
  if (view.pending === 0) return false;
  if (view.wait !== undefined && HOLDS.has(view.wait)) return true;
  return view.oldestEndedAt !== undefined && view.now - view.oldestEndedAt >= ROWS_LAG_MS;
}
