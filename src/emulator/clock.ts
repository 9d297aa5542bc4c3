/**
 * The emulator's notion of time. Everything time-dependent in the emulator (task progress, checkpoint
 * timeouts, webhook delivery, rate-limit windows) reads `now()` and schedules with `setTimeout`, so a
 * test can drive it with a fake clock and the dev command can run it faster than real time.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, in this clock's time. */
  now(): number;
  /**
   * Runs `fn` once after `ms` of this clock's time; the returned handle cancels it. `fn` may return a
   * promise: a test clock awaits it before time moves on, and the system clock reports its failure.
   */
  setTimeout(fn: () => unknown, ms: number): TimerHandle;
}

/** A scheduled callback that can be cancelled before it runs. */
export interface TimerHandle {
  cancel(): void;
}

/**
 * Real wall-clock time. Timers are unref'd so they never keep a process alive on their own. Nobody awaits
 * a timer's work, so a callback that throws or rejects is reported as a process warning: an unhandled
 * rejection would end the process, and with it every worker sharing it (`rp dev`).
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const timer = setTimeout(() => void Promise.resolve().then(fn).catch(reportTimerFailure), Math.max(0, ms));
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
};

/**
 * A clock that runs `speed` times faster than `base`: at 60x a 15-minute task takes 15 real seconds.
 * Time starts at the base clock's current time, so dates stay realistic.
 */
export function scaledClock(speed: number, base: Clock = systemClock): Clock {
  if (!Number.isFinite(speed) || speed <= 0) {
    throw new RangeError(`clock speed must be a positive number, got ${speed}`);
  }
  const origin = base.now();
  return {
    now: () => origin + (base.now() - origin) * speed,
    setTimeout: (fn, ms) => base.setTimeout(fn, ms / speed),
  };
}

// Written as text: a warning built from another realm's Error would be refused, and this must never throw.
function reportTimerFailure(error: unknown): void {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.emitWarning(`an emulator timer failed: ${detail}`, 'EmulatorTimerWarning');
}
