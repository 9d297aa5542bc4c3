import type { Clock, TimerHandle } from './clock';

/** A clock whose pending timers can all be cancelled at once: what `close()` needs so nothing fires later. */
export interface TrackedClock extends Clock {
  /** Cancels every pending timer; later `setTimeout` calls schedule nothing. */
  cancelAll(): void;
  /** Number of timers scheduled and not yet fired or cancelled. */
  pending(): number;
}

/** Wraps `base` so every timer scheduled through it is remembered until it fires or is cancelled. */
export function trackedClock(base: Clock): TrackedClock {
  const timers = new Set<TimerHandle>();
  let closed = false;
  return {
    now: () => base.now(),
    setTimeout(fn, ms) {
      if (closed) return { cancel: () => undefined };
      const handle: TimerHandle = base.setTimeout(() => {
        timers.delete(wrapper);
        // Hand back what the callback returns, so a fake clock can await asynchronous timer work.
        return fn();
      }, ms);
      const wrapper: TimerHandle = {
        cancel: () => {
          timers.delete(wrapper);
          handle.cancel();
        },
      };
      timers.add(wrapper);
      return wrapper;
    },
    cancelAll() {
      closed = true;
      for (const timer of [...timers]) timer.cancel();
    },
    pending: () => timers.size,
  };
}

/** Resolves after `ms` of real time, or at once when `ms` is 0; the timer never keeps the process alive. */
export function realDelay(ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
