import type { Clock, TimerHandle } from '../../src/emulator/clock';

interface ScheduledTimer {
  readonly id: number;
  readonly dueAt: number;
  readonly fn: () => unknown;
}

/** 2025-01-01T00:00:00Z: a fixed start so dates in test output are stable run to run. */
export const DEFAULT_FAKE_CLOCK_START_MS = Date.UTC(2025, 0, 1);

/**
 * A clock whose time moves only when a test advances it (to the next due timer or to a deadline), so
 * an in-process emulator's transitions and webhooks fire in one repeatable timeline.
 */
export class FakeClock implements Clock {
  private current: number;
  private nextId = 1;
  private timers: ScheduledTimer[] = [];

  constructor(startMs: number = DEFAULT_FAKE_CLOCK_START_MS) {
    this.current = startMs;
  }

  /** Current fake time in milliseconds since the epoch. */
  now(): number {
    return this.current;
  }

  /**
   * Schedules `fn` at now + `ms`. A callback that returns a promise is awaited by {@link advanceTo},
   * so async work it starts (an emulator posting a webhook) finishes before time moves again.
   */
  setTimeout(fn: () => unknown, ms: number): TimerHandle {
    const delay = Number.isFinite(ms) ? Math.max(0, ms) : 0;
    const timer: ScheduledTimer = { id: this.nextId++, dueAt: this.current + delay, fn };
    // Keep the list sorted by due time, then by insertion, so equal times fire in the order set.
    const index = this.timers.findIndex((other) => other.dueAt > timer.dueAt);
    if (index === -1) this.timers.push(timer);
    else this.timers.splice(index, 0, timer);
    return { cancel: () => this.remove(timer.id) };
  }

  /** Due time of the earliest pending timer, or undefined when none is pending. */
  nextDueAt(): number | undefined {
    return this.timers[0]?.dueAt;
  }

  /** Number of timers not yet fired or cancelled. */
  get pendingTimerCount(): number {
    return this.timers.length;
  }

  /**
   * Moves time forward to `target` (never backward), firing every timer due on the way in order,
   * with `now()` equal to each timer's due time while it runs. Rejects with the first error thrown
   * or rejected by a callback, after all due callbacks have run.
   */
  async advanceTo(target: number): Promise<void> {
    const results: Promise<unknown>[] = [];
    for (let timer = this.timers[0]; timer !== undefined && timer.dueAt <= target; timer = this.timers[0]) {
      this.timers.shift();
      this.current = Math.max(this.current, timer.dueAt);
      try {
        results.push(Promise.resolve(timer.fn()));
      } catch (error) {
        results.push(Promise.reject(error));
      }
    }
    this.current = Math.max(this.current, target);
    const settled = await Promise.allSettled(results);
    const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) throw failure.reason;
  }

  private remove(id: number): void {
    this.timers = this.timers.filter((timer) => timer.id !== id);
  }
}
