import { MockActivityEnvironment } from '@temporalio/testing';
import { ATTEMPT_REPORT_MARGIN_MS, attemptBudgetMs, callOptions } from '../../src/activities/context';

describe('the time limit of service calls inside an activity attempt', () => {
  it("is what is left of the attempt's start-to-close timeout, less the reporting margin", async () => {
    const now = Date.now();
    const env = new MockActivityEnvironment({ startToCloseTimeoutMs: 120_000, currentAttemptScheduledTimestampMs: now - 100_000 });
    expect(await env.run(async () => attemptBudgetMs(now))).toBe(20_000 - ATTEMPT_REPORT_MARGIN_MS);
  });

  it('never reaches zero, so a late call fails at once with a timeout instead of running unbounded', async () => {
    const now = Date.now();
    const env = new MockActivityEnvironment({ startToCloseTimeoutMs: 60_000, currentAttemptScheduledTimestampMs: now - 600_000 });
    expect(await env.run(async () => attemptBudgetMs(now))).toBe(1);
  });

  it('rides on every call the activities make, with the cancellation signal', async () => {
    const env = new MockActivityEnvironment({ startToCloseTimeoutMs: 60_000, currentAttemptScheduledTimestampMs: Date.now() });
    const options: ReturnType<typeof callOptions> = await env.run(async () => callOptions());
    expect(options.signal).toBeInstanceOf(AbortSignal);
    expect(options.timeoutMs).toBeGreaterThan(50_000);
    expect(options.timeoutMs).toBeLessThanOrEqual(60_000 - ATTEMPT_REPORT_MARGIN_MS);
  });

  it('is absent outside an activity', () => {
    expect(attemptBudgetMs()).toBeUndefined();
    expect(callOptions()).toEqual({});
  });
});
