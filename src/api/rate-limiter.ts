import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The service's request rate for one API key, as the account's plan gives it: calls are spaced
 * `1000 / requestsPerSecond` ms apart, with at most `burst` sent at once after a quiet spell.
 */
export interface RateRule {
  requestsPerSecond: number;
  burst: number;
}

/**
 * Pacing state of one key (times in ms on one monotonic clock): `nextAt` is when the next call would
 * be due if calls went exactly at the rate (the generic cell rate algorithm's theoretical arrival time),
 * `holdUntil` the end of the last `Retry-After` the service asked for.
 */
export interface PaceState {
  nextAt: number;
  holdUntil: number;
}

/** What `reserveSlot` decides for one call. */
export type SlotDecision =
  /** Send after `waitMs` (0: now); `state` already counts the call. */
  | { kind: 'send'; waitMs: number; state: PaceState }
  /** The slot is later than the call may wait: refuse it without sending and without taking the slot. */
  | { kind: 'refuse'; waitMs: number };

/**
 * Where a call fits: not before the service's hold ends, and with a rule, not before its turn at the rate
 * (calls reserve turns in the order they ask). A call whose turn is more than `maxWaitMs` away is refused
 * and takes nothing, so a queue of calls that would time out waiting does not push later calls back.
 */
export function reserveSlot(state: PaceState, rule: RateRule | undefined, now: number, maxWaitMs: number): SlotDecision {
  const holdAt = state.holdUntil > now ? state.holdUntil : Number.NEGATIVE_INFINITY;
  if (!rule) {
    const waitMs = Math.max(0, holdAt - now);
    return waitMs > maxWaitMs ? { kind: 'refuse', waitMs } : { kind: 'send', waitMs, state };
  }
  const interval = 1000 / rule.requestsPerSecond;
  const tolerance = (Math.max(1, Math.floor(rule.burst)) - 1) * interval;
  // This call's turn if every call went exactly at the rate; `burst` turns may be taken early.
  const due = Math.max(state.nextAt, now);
  const held = holdAt > due - tolerance;
  const waitMs = Math.max(now, held ? holdAt : due - tolerance) - now;
  if (waitMs > maxWaitMs) return { kind: 'refuse', waitMs };
  // After a hold the turns restart at its end, one interval apart: no burst into a service that just said no.
  const nextAt = (held ? holdAt + tolerance : due) + interval;
  return { kind: 'send', waitMs, state: { ...state, nextAt } };
}

/**
 * The wait before a call goes, measured from the calls actually sent (`sentNextAt`: when the next would
 * be due had each gone at the rate after the one before), and the state once it goes. Turns are reserved
 * ahead (`reserveSlot`), but a process busy for a while wakes every call whose turn passed meanwhile at
 * once: spaced from what was actually sent, they go at the rate again instead of together. Half an
 * interval of slack keeps timer jitter from adding waits; it never lets more than `burst` go at once.
 */
export function spaceFromSent(sentNextAt: number, rule: RateRule, now: number): { waitMs: number; sentNextAt: number } {
  const interval = 1000 / rule.requestsPerSecond;
  const tolerance = (Math.max(1, Math.floor(rule.burst)) - 1) * interval + interval / 2;
  const due = Math.max(sentNextAt, now);
  return { waitMs: Math.max(0, due - tolerance - now), sentNextAt: due + interval };
}

/** The state after the service answered 429 with `Retry-After: retryAfterMs`: no call for that key before it has passed. */
export function holdFor(state: PaceState, now: number, retryAfterMs: number): PaceState {
  return { ...state, holdUntil: Math.max(state.holdUntil, now + Math.max(0, retryAfterMs)) };
}

/**
 * One API key's pacing, shared by every client of that key (and service origin) in the process: the
 * service counts requests per key, so two clients pacing on their own would together pass its limit.
 * In memory only; a worker keeps nothing on its disk.
 */
export class KeyRateLimiter {
  #state: PaceState = { nextAt: Number.NEGATIVE_INFINITY, holdUntil: Number.NEGATIVE_INFINITY };
  /** When the next call would be due, counted from the calls actually sent (see `spaceFromSent`). */
  #sentNextAt = Number.NEGATIVE_INFINITY;
  #rule: RateRule | undefined;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The rate calls of this key are paced at (the lowest any client of the key was given), if any. */
  get rule(): RateRule | undefined {
    return this.#rule;
  }

  /** Adds a client's rule; the key keeps the slower one, as the service's limit is one. */
  adopt(rule: RateRule | undefined): void {
    if (!rule) return;
    if (!this.#rule || rule.requestsPerSecond < this.#rule.requestsPerSecond)
      this.#rule = { ...rule, burst: Math.min(rule.burst, this.#rule?.burst ?? rule.burst) };
    else this.#rule = { ...this.#rule, burst: Math.min(rule.burst, this.#rule.burst) };
  }

  /**
   * Waits for the call's turn. `paced` is false for a client without a rule of its own: it waits only for
   * a hold the service asked for. Returns undefined once the call may go, or the wait in ms when the turn
   * is more than `maxWaitMs` away (the caller refuses the call unsent). Rejects when `signal` aborts.
   */
  async acquire(paced: boolean, maxWaitMs: number, signal?: AbortSignal): Promise<number | undefined> {
    const started = this.now();
    for (;;) {
      const now = this.now();
      const decision = reserveSlot(this.#state, paced ? this.#rule : undefined, now, maxWaitMs - (now - started));
      if (decision.kind === 'refuse') return decision.waitMs;
      this.#state = decision.state;
      if (decision.waitMs > 0) {
        const holdBefore = this.#state.holdUntil;
        await sleep(decision.waitMs, undefined, signal ? { signal } : {});
        // A 429 that came while this call waited moves its turn behind the new hold (its old turn is dropped).
        if (this.#state.holdUntil !== holdBefore) continue;
      }
      return paced && this.#rule ? this.#spaced(this.#rule, maxWaitMs - (this.now() - started), signal) : undefined;
    }
  }

  /** Waits, if need be, until the call is far enough from the calls actually sent (see `spaceFromSent`); refuses like `acquire`. */
  async #spaced(rule: RateRule, maxWaitMs: number, signal?: AbortSignal): Promise<number | undefined> {
    const spaced = spaceFromSent(this.#sentNextAt, rule, this.now());
    if (spaced.waitMs > Math.max(0, maxWaitMs)) return spaced.waitMs;
    this.#sentNextAt = spaced.sentNextAt;
    if (spaced.waitMs > 0) await sleep(spaced.waitMs, undefined, signal ? { signal } : {});
    return undefined;
  }

  /** The service answered 429 with `Retry-After`: every call of the key waits until it has passed. */
  hold(retryAfterMs: number): void {
    this.#state = holdFor(this.#state, this.now(), retryAfterMs);
  }
}

const limiters = new Map<string, KeyRateLimiter>();

/** The process's limiter for `apiKey` at `origin` (the map is keyed by a hash, so it holds no key). */
export function limiterFor(origin: string, apiKey: string): KeyRateLimiter {
  const id = createHash('sha256').update(`${origin}\n${apiKey}`).digest('hex');
  let limiter = limiters.get(id);
  if (!limiter) limiters.set(id, (limiter = new KeyRateLimiter()));
  return limiter;
}
