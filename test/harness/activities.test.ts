import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { FakeClock, WorkflowFailedError, WorkflowHarness } from '../support/harness';
import { describeScenarios } from '../support/scenario-env';
import type { TimedResult } from '../fixtures/harness-workflows';
import { ActivityRecorder, fixtureActivities } from './fixture-activities';

const workflowsPath = path.join(__dirname, '../fixtures/harness-workflows');
let recorder = new ActivityRecorder();

function failUntilAttempt(succeedingAttempt: number): (attempt: number) => string {
  return (attempt) => {
    if (attempt < succeedingAttempt) throw new Error(`attempt ${attempt} failed`);
    return `succeeded on attempt ${attempt}`;
  };
}

describeScenarios(
  'activities',
  {
    workflowsPath,
    activities: (clock) => {
      recorder = new ActivityRecorder();
      return fixtureActivities(recorder, clock);
    },
  },
  (env) => {
    it('returns the activity result to the workflow', async () => {
      const handle = await env().start<string>('greetingWorkflow', { workflowId: 'greet-ada', args: ['Ada'] });
      expect(await handle.result()).toBe('Hello, Ada!');
    });

    it('runs local activities too', async () => {
      const handle = await env().start<string>('localGreetingWorkflow', { workflowId: 'greet-local', args: ['Bo'] });
      expect(await handle.result()).toBe('Hello, Bo!');
    });

    it('retries a failing activity with backoff until an attempt succeeds', async () => {
      recorder.flakyBehaviour = failUntilAttempt(3);
      const handle = await env().start<TimedResult>('retryingWorkflow', { workflowId: 'retry-backoff', args: ['call'] });
      const { result, startedAt, finishedAt } = await handle.result();
      expect(result).toBe('succeeded on attempt 3');
      expect(recorder.flakyAttempts.map((attempt) => attempt.attempt)).toEqual([1, 2, 3]);
      expect(finishedAt - startedAt).toBeGreaterThanOrEqual(1_000 + 2_000);
    });

    it('waits nextRetryDelay from an ApplicationFailure instead of the policy backoff', async () => {
      recorder.flakyBehaviour = (attempt) => {
        if (attempt === 1) throw ApplicationFailure.create({ message: 'rate limited', type: 'RateLimited', nextRetryDelay: 1_500 });
        return 'after the delay';
      };
      const handle = await env().start<TimedResult>('retryingWorkflow', { workflowId: 'retry-next-delay', args: ['call'] });
      expect((await handle.result()).result).toBe('after the delay');
      const [first, second] = recorder.flakyAttempts;
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(1_500);
    });

    it('does not retry a nonRetryable ApplicationFailure and fails the workflow with its type', async () => {
      recorder.flakyBehaviour = () => {
        throw ApplicationFailure.nonRetryable('bad input', 'BadInput');
      };
      const handle = await env().start('retryingWorkflow', { workflowId: 'retry-non-retryable', args: ['call'] });
      const failure = await handle.result().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect(failure).toMatchObject({ status: 'failed', message: 'Activity task failed', type: 'BadInput' });
      expect(recorder.flakyAttempts).toHaveLength(1);
    });

    it('does not retry error types listed in the policy as non-retryable', async () => {
      recorder.flakyBehaviour = () => {
        throw ApplicationFailure.create({ message: 'gone for good', type: 'PermanentError' });
      };
      const handle = await env().start('retryingWorkflow', { workflowId: 'retry-permanent', args: ['call'] });
      await expect(handle.result()).rejects.toMatchObject({ type: 'PermanentError' });
      expect(recorder.flakyAttempts).toHaveLength(1);
    });

    it('resolves a cancelled activity as cancelled in the workflow', async () => {
      const handle = await env().start<string>('cancelActivityWorkflow', { workflowId: 'cancel-activity', args: [100] });
      expect(await handle.result()).toBe('activity cancelled');
    });
  },
);

describe('activities on the harness clock', () => {
  let harness: WorkflowHarness;
  beforeEach(async () => {
    recorder = new ActivityRecorder();
    const clock = new FakeClock();
    harness = await WorkflowHarness.create({ workflowsPath, clock, activities: fixtureActivities(recorder, clock) });
  });
  afterEach(() => harness.close());

  it('advances fake time by exactly the backoff: 1 s, then 2 s', async () => {
    recorder.flakyBehaviour = failUntilAttempt(3);
    const handle = await harness.start<TimedResult>('retryingWorkflow', { workflowId: 'exact-backoff', args: ['call'] });
    const { startedAt, finishedAt } = await handle.result();
    expect(recorder.flakyAttempts.map((attempt) => attempt.at - startedAt)).toEqual([0, 1_000, 3_000]);
    expect(finishedAt - startedAt).toBe(3_000);
  });

  it('caps the backoff at maximumInterval and gives up after maximumAttempts', async () => {
    recorder.flakyBehaviour = failUntilAttempt(Infinity);
    const handle = await harness.start('retryingWorkflow', { workflowId: 'exhausted', args: ['call'] });
    const startedAt = harness.clock.now();
    await expect(handle.result()).rejects.toMatchObject({ message: 'Activity task failed' });
    // Delays 1 s, 2 s, then 3 s twice (4 s capped to the 3 s maximumInterval).
    expect(recorder.flakyAttempts.map((attempt) => attempt.at - startedAt)).toEqual([0, 1_000, 3_000, 6_000, 9_000]);
  });

  it('takes nextRetryDelay as the exact wait before the next attempt', async () => {
    recorder.flakyBehaviour = (attempt) => {
      if (attempt === 1) throw ApplicationFailure.create({ message: 'rate limited', nextRetryDelay: '30 seconds' });
      return 'ok';
    };
    const handle = await harness.start<TimedResult>('retryingWorkflow', { workflowId: 'exact-next-delay', args: ['call'] });
    const { startedAt, finishedAt } = await handle.result();
    expect(finishedAt - startedAt).toBe(30_000);
  });

  it('cancels the running activity through its Context so it stops heartbeating', async () => {
    const handle = await harness.start<string>('cancelActivityWorkflow', { workflowId: 'cancel-seen', args: [60] });
    expect(await handle.result()).toBe('activity cancelled');
    await harness.waitUntil(() => recorder.cancellationsSeen === 1, { description: 'the activity to see its cancellation' });
    expect(recorder.heartbeats).toBeGreaterThan(0);
  });
});
