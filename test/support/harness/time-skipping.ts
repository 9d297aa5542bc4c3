import { HarnessStalledError } from './errors';
import type { FakeClock } from './fake-clock';

/** What skipping time needs: the clock, and a way to run everything runnable at the current time. */
export interface Settleable {
  readonly clock: FakeClock;
  /** Runs activations and awaits activities; fake time may flow in real time up to `flowUntil`. */
  settle(flowUntil?: number): Promise<void>;
}

// A guard against endless time skipping (an activity retried forever, a workflow looping on a timer).
const MAX_TIME_STEPS = 100_000;

/**
 * Moves fake time like a time-skipping server until `stop()` holds: settle, then jump to the next
 * due timer (workflow timers, retry backoffs, timers other code set on the clock), and again. With
 * a `deadline`, never past it, and the result says whether `stop()` held. Without one, throws when
 * nothing can ever happen (no timer, nothing running) rather than hang.
 */
export async function skipTime(
  host: Settleable,
  stop: () => boolean | Promise<boolean>,
  deadline: number | undefined,
  waitingFor: string,
): Promise<boolean> {
  const { clock } = host;
  for (let step = 0; ; step++) {
    await host.settle(deadline ?? Infinity);
    if (await stop()) return true;
    const next = clock.nextDueAt();
    if (next === undefined || (deadline !== undefined && next > deadline)) {
      if (deadline === undefined) {
        throw new HarnessStalledError(
          `Waiting for ${waitingFor}, but nothing can happen: no activity is running and no timer is pending ` +
            `(a workflow waits for a signal, update or condition that nobody sends).`,
        );
      }
      await clock.advanceTo(deadline);
      await host.settle(deadline);
      return stop();
    }
    if (step >= MAX_TIME_STEPS) {
      throw new HarnessStalledError(
        `Waiting for ${waitingFor}: moved time ${MAX_TIME_STEPS} times (now ${new Date(clock.now()).toISOString()}) ` +
          `without getting there. Is an activity retried forever, or a workflow looping on a timer?`,
      );
    }
    await clock.advanceTo(next);
  }
}
