import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { Clock } from '../../src/emulator/clock';
import type { FixtureActivities } from '../fixtures/harness-workflows/activity-types';

/** One call of the `flaky` activity as the activity saw it. */
export interface FlakyAttempt {
  readonly label: string;
  readonly attempt: number;
  readonly at: number;
}

/** What the fixture activities did, and knobs a test turns to script them. */
export class ActivityRecorder {
  /** Decides each `flaky` attempt: return a result or throw. Default: succeed. */
  flakyBehaviour: (attempt: number) => string = () => 'ok';
  /** What `isReady` reports; tests flip it from a clock timer, as an emulator would. */
  ready = false;
  readonly flakyAttempts: FlakyAttempt[] = [];
  readonly cleanUps: string[] = [];
  cancellationsSeen = 0;
  heartbeats = 0;
}

/** Fixture activities backed by `recorder`, reading time from the environment's clock. */
export function fixtureActivities(recorder: ActivityRecorder, clock: Clock): FixtureActivities {
  return {
    async greet(name) {
      return `Hello, ${name}!`;
    },
    async flaky(label) {
      const { attempt } = Context.current().info;
      recorder.flakyAttempts.push({ label, attempt, at: clock.now() });
      return recorder.flakyBehaviour(attempt);
    },
    async isReady() {
      return recorder.ready;
    },
    async makeBlob(size) {
      return 'x'.repeat(size);
    },
    async waitForCancellation() {
      const context = Context.current();
      try {
        for (;;) {
          context.heartbeat();
          recorder.heartbeats += 1;
          await context.sleep(20);
        }
      } catch (error) {
        if (error instanceof CancelledFailure) recorder.cancellationsSeen += 1;
        throw error;
      }
    },
    async cleanUp(reason) {
      recorder.cleanUps.push(reason);
    },
  };
}
