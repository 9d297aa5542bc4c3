import { FailureType } from '../domain/failures';
import { fitsBudget, reserveFor } from '../domain/budget';
import type { BudgetLedger, PlannedItem } from '../domain/pipeline-types';

/** A token bucket for item starts: `start_rate_per_second` tokens a second, at most one second's worth saved. */
export interface RateBucket {
  tokens: number;
  updatedAt: number;
}

/** The bucket as of `now`. */
export function refill(bucket: RateBucket, ratePerSecond: number, now: number): RateBucket {
  const capacity = Math.max(1, ratePerSecond);
  const elapsed = Math.max(0, now - bucket.updatedAt);
  return { tokens: Math.min(capacity, bucket.tokens + (elapsed * ratePerSecond) / 1000), updatedAt: now };
}

/** Milliseconds until the (refilled) bucket holds one token. */
export function msUntilToken(bucket: RateBucket, ratePerSecond: number): number {
  return bucket.tokens >= 1 ? 0 : Math.ceil(((1 - bucket.tokens) * 1000) / ratePerSecond);
}

/** What the window decides about the next item. */
export type WindowDecision =
  /** Start `item` (reserve its price first). */
  | { kind: 'start'; item: PlannedItem }
  /** Count `item` as done without running it: an earlier execution of the run finished it. */
  | { kind: 'reuse'; item: PlannedItem }
  /** Record `item` as failed without spending: it cannot run (its `problem` says why). */
  | { kind: 'refuse'; item: PlannedItem }
  /** Start nothing now; wake after `delayMs` if given, else when something changes. */
  | { kind: 'wait'; reason: WaitCause; delayMs?: number };

/** Why the window starts nothing. */
export type WaitCause = 'window_full' | 'paused' | 'credits_exhausted' | 'stopping' | 'no_items' | 'rate' | 'budget' | 'budget_blocked' | 'price_probe';

/** What the window decision looks at. */
export interface WindowView {
  running: number;
  concurrency: number;
  paused: boolean;
  /** A 402 stopped starts until an operator resumes the run. */
  creditsExhausted: boolean;
  /** No new starts: the run is draining to continue as new, was cancelled, or will fail. */
  stopping: boolean;
  next?: PlannedItem;
  ledger: BudgetLedger;
  bucket: RateBucket;
  ratePerSecond: number;
  /** Dearest unbounded-price item seen so far (undefined before the first ends). */
  observedMaxUsd?: number;
}

/**
 * The sliding window's rule for the next item, in order: items needing no start (done before, or
 * unrunnable) pass at once; then pause, credits, draining and a full window hold starts; then the start
 * rate; then the budget, which never lets spent plus reserved pass the limit (`budget_blocked` when
 * nothing is in flight that could free money: only an operator's raise helps).
 */
export function decideNext(view: WindowView): WindowDecision {
  const { next } = view;
  if (!next) return { kind: 'wait', reason: 'no_items' };
  if (next.done) return { kind: 'reuse', item: next };
  if (next.problem !== undefined || (next.request === undefined && !next.stepwise)) return { kind: 'refuse', item: next };
  if (view.stopping) return { kind: 'wait', reason: 'stopping' };
  if (view.paused) return { kind: 'wait', reason: 'paused' };
  if (view.creditsExhausted) return { kind: 'wait', reason: 'credits_exhausted' };
  if (view.running >= view.concurrency) return { kind: 'wait', reason: 'window_full' };
  const wait = msUntilToken(view.bucket, view.ratePerSecond);
  if (wait > 0) return { kind: 'wait', reason: 'rate', delayMs: wait };
  // Until one unbounded-price item has ended, no second one starts beside it: the budget can then be
  // passed by at most that one item, and later ones reserve from what it cost.
  if (next.priceUnbounded && view.observedMaxUsd === undefined && view.running > 0) return { kind: 'wait', reason: 'price_probe' };
  if (!fitsBudget(view.ledger, reserveFor(next, view.observedMaxUsd))) return { kind: 'wait', reason: view.running === 0 ? 'budget_blocked' : 'budget' };
  return { kind: 'start', item: next };
}

/** Items per page: twice the window, from 20 to 200 (the page's items sit in history once). */
export function pageSizeFor(concurrency: number, requested?: number): number {
  return Math.max(1, Math.min(200, requested ?? Math.max(20, concurrency * 2)));
}

/** What the read-ahead rule looks at. */
export interface ReadAheadView {
  /** Items of the current page not yet taken. */
  left: number;
  /** A page follows the current one (it is not the input's last). */
  morePages: boolean;
  /** The next page is being read already. */
  reading: boolean;
  /** No new starts (draining for continue-as-new, cancelled, failing): the next page would not be used. */
  stopping: boolean;
  concurrency: number;
  pageSize: number;
}

/**
 * Whether the run starts reading the next page now, beside the window, so that starts go on at the page
 * boundary instead of waiting for the read: once the current page holds no more items than the window can
 * hold (its concurrency) or half a page, whichever is more. One page is read ahead at most.
 */
export function readAheadDue(view: ReadAheadView): boolean {
  if (!view.morePages || view.reading || view.stopping || view.left === 0) return false;
  return view.left <= Math.max(view.concurrency, Math.ceil(view.pageSize / 2));
}

/** Failure types that another attempt cannot fix: the request itself is wrong. */
// A create whose outcome nobody settled may have made a task: running the item again could pay twice.
const PERMANENT_FAILURES: ReadonlySet<string> = new Set([
  FailureType.InvalidRequest,
  FailureType.InvalidInput,
  FailureType.NotFound,
  FailureType.CreateOutcomeUnknown,
]);

/** Whether a failed item gets another attempt: attempts left, and a failure another attempt could fix. */
export function shouldRetry(attempts: number, retries: number, failureType: string | undefined): boolean {
  return attempts <= retries && !(failureType !== undefined && PERMANENT_FAILURES.has(failureType));
}

/** Records flushed to the store at once: few activities, and a crash loses little to write again. */
export const RECORD_FLUSH_SIZE = 25;
