import http from 'node:http';
import path from 'node:path';
import { FakeClock, HarnessStalledError, WaitTimeoutError, WorkflowHarness } from '../support/harness';
import { describeScenarios } from '../support/scenario-env';
import { ActivityRecorder, fixtureActivities } from './fixture-activities';

const workflowsPath = path.join(__dirname, '../fixtures/harness-workflows');
const TWO_HOURS_MS = 2 * 60 * 60 * 1000;

describeScenarios('waiting', { workflowsPath }, (env) => {
  it('rejects waitUntil after its timeout with an error naming what it waited for', async () => {
    const waiting = env().waitUntil(() => false, { timeoutMs: 300, description: 'the report to be ready' });
    await expect(waiting).rejects.toThrow(WaitTimeoutError);
    await expect(waiting).rejects.toThrow(/timed out after 300 ms .* waiting for the report to be ready/);
  });

  it('returns from waitUntil as soon as the predicate holds', async () => {
    const handle = await env().start('sleepingWorkflow', { workflowId: 'short-sleep', args: [200] });
    let closed = false;
    void handle.result().then(() => (closed = true));
    await env().waitUntil(() => closed, { timeoutMs: 10_000, description: 'the sleeper to finish' });
    expect(closed).toBe(true);
  });
});

describe('time on the harness', () => {
  let clock: FakeClock;
  let recorder: ActivityRecorder;
  let harness: WorkflowHarness;
  beforeEach(async () => {
    clock = new FakeClock();
    recorder = new ActivityRecorder();
    harness = await WorkflowHarness.create({ workflowsPath, clock, activities: fixtureActivities(recorder, clock) });
  });
  afterEach(() => harness.close());

  it('skips a 2-hour timer in well under a second, with Date.now() in the workflow 2 h later', async () => {
    const realStart = Date.now();
    const handle = await harness.start<{ startedAt: number; finishedAt: number }>('sleepingWorkflow', {
      workflowId: 'two-hours',
      args: [TWO_HOURS_MS],
    });
    const { startedAt, finishedAt } = await handle.result();
    expect(finishedAt - startedAt).toBe(TWO_HOURS_MS);
    expect(clock.now() - startedAt).toBe(TWO_HOURS_MS);
    expect(Date.now() - realStart).toBeLessThan(1_000);
  });

  it('moves time only when the test asks: a 5 s timer fires after sleep(5 s), not before', async () => {
    const start = clock.now();
    const handle = await harness.start('sleepingWorkflow', { workflowId: 'lazy-clock', args: [5_000] });
    expect(clock.now()).toBe(start);
    await harness.sleep(4_999);
    // Started, first workflow task, TimerStarted: the timer has not fired yet.
    expect(await handle.historyLength()).toBe(5);
    await harness.sleep(1);
    // + TimerFired, second workflow task, WorkflowExecutionCompleted: as many events as the server records.
    expect(await handle.historyLength()).toBe(10);
  });

  it('fires a timer that other code registered on the shared clock as time advances', async () => {
    const firedAt: number[] = [];
    clock.setTimeout(() => firedAt.push(clock.now()), 45_000);
    const start = clock.now();
    await harness.sleep(60_000);
    expect(firedAt).toEqual([start + 45_000]);
    expect(clock.now()).toBe(start + 60_000);
  });

  it('lets a workflow polling an activity see a change made by an external clock timer', async () => {
    clock.setTimeout(() => {
      recorder.ready = true;
    }, 45_000);
    const start = clock.now();
    const handle = await harness.start<number>('pollingWorkflow', { workflowId: 'poller', args: [10_000] });
    // Polls at 0, 10, 20, 30, 40 s see "not ready"; the emulator flips it at 45 s; the poll at 50 s sees it.
    expect(await handle.result()).toBe(6);
    expect(clock.now() - start).toBe(50_000);
  });

  it('waits for activities calling a local HTTP service on the same clock before moving time', async () => {
    const readyAt = clock.now() + 25_000;
    // A stand-in for the emulator: answers from the fake clock, after a little real time.
    const service = http.createServer((_request, response) => {
      setTimeout(() => response.end(JSON.stringify(clock.now() >= readyAt)), 20);
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    const address = service.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const httpHarness = await WorkflowHarness.create({
      workflowsPath,
      clock,
      activities: { isReady: async () => (await (await fetch(`http://127.0.0.1:${port}/`)).json()) === true },
    });
    try {
      const start = clock.now();
      const handle = await httpHarness.start<number>('pollingWorkflow', { workflowId: 'http-poller', args: [10_000] });
      // Polls at 0, 10 and 20 s answer false; the poll at 30 s is the first after readyAt.
      expect(await handle.result()).toBe(4);
      expect(clock.now() - start).toBe(30_000);
    } finally {
      await httpHarness.close();
      await new Promise((resolve) => service.close(resolve));
    }
  });

  it('awaits an async callback on the clock before moving time further', async () => {
    const events: string[] = [];
    clock.setTimeout(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      events.push(`callback done at +${clock.now() - start}`);
    }, 1_000);
    clock.setTimeout(() => events.push(`second timer at +${clock.now() - start}`), 2_000);
    const start = clock.now();
    await harness.sleep(3_000);
    expect(events).toEqual(['callback done at +1000', 'second timer at +2000']);
  });

  it('fails result() fast when the workflow waits for a signal nobody sends', async () => {
    const handle = await harness.start('approvalWorkflow', { workflowId: 'never-approved', args: [10] });
    await expect(handle.result()).rejects.toThrow(HarnessStalledError);
    await expect(handle.result()).rejects.toThrow(/waits for a signal, update or condition/);
  });
});
