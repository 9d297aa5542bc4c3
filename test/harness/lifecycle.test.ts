import path from 'node:path';
import {
  assertHarnessSdkVersion,
  FakeClock,
  WorkflowFailedError,
  WorkflowHarness,
  WorkflowTaskFailedError,
} from '../support/harness';
import { describeScenarios } from '../support/scenario-env';
import { ActivityRecorder, fixtureActivities } from './fixture-activities';

const workflowsPath = path.join(__dirname, '../fixtures/harness-workflows');
let recorder = new ActivityRecorder();

describeScenarios(
  'workflow lifecycle',
  {
    workflowsPath,
    activities: (clock) => {
      recorder = new ActivityRecorder();
      return fixtureActivities(recorder, clock);
    },
    searchAttributes: { ResearchStatus: 'KEYWORD', ItemsDone: 'INT' },
  },
  (env) => {
    it('rejects result() with the failure message and type when the workflow fails', async () => {
      const handle = await env().start('failingWorkflow', { workflowId: 'fails', args: ['pipeline has no inputs'] });
      const failure = await handle.result().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect(failure).toMatchObject({ status: 'failed', message: 'pipeline has no inputs', type: 'InvalidPipeline' });
    });

    it('runs cleanup in a non-cancellable scope when the workflow is cancelled, then reports it cancelled', async () => {
      const handle = await env().start('cleanupOnCancelWorkflow', { workflowId: 'cancel-cleanup' });
      await handle.cancel();
      await expect(handle.result()).rejects.toMatchObject({ status: 'cancelled' });
      expect(recorder.cleanUps).toEqual(['workflow cancelled']);
    });

    it('returns a child workflow result to its parent', async () => {
      const handle = await env().start<number>('parentWorkflow', { workflowId: 'parent-of-4', args: [4] });
      expect(await handle.result()).toBe(10);
      expect(await env().getHandle<number>('child-of-4').result()).toBe(5);
    });

    it('cancels the child when the parent is cancelled', async () => {
      const parent = await env().start('parentOfSleeperWorkflow', { workflowId: 'parent-cancelled', args: ['sleepy-child'] });
      const child = env().getHandle('sleepy-child');
      // On a server the child may not exist yet (history lookups fail until it does).
      await env().waitUntil(() => child.historyLength().then((events) => events > 0, () => false), {
        description: 'the child to start',
      });
      await parent.cancel();
      await expect(child.result()).rejects.toMatchObject({ status: 'cancelled' });
      await expect(parent.result()).rejects.toMatchObject({ status: 'cancelled' });
    });

    it('continues as new with the carried state until done, counting the runs', async () => {
      const handle = await env().start<number[]>('counterWorkflow', {
        workflowId: 'counter',
        args: [{ seen: [], target: 3, pauseMs: 100 }],
      });
      expect(await handle.result()).toEqual([1, 2, 3]);
      expect(await handle.runCount()).toBe(3);
    });

    it('shows upserted search attributes while running and their final values after', async () => {
      const handle = await env().start('statusReportingWorkflow', { workflowId: 'status', args: [12, 500] });
      await env().waitUntil(async () => (await handle.searchAttributes()).ResearchStatus === 'running', {
        timeoutMs: 10_000,
        description: 'ResearchStatus=running',
      });
      await handle.result();
      expect(await handle.searchAttributes()).toMatchObject({ ResearchStatus: 'done', ItemsDone: 12 });
    });

    it('applies a patch in a new execution (patched() is true)', async () => {
      const handle = await env().start<boolean>('patchedWorkflow', { workflowId: 'patched' });
      expect(await handle.result()).toBe(true);
    });

    it('measures the largest payload and keeps the history small', async () => {
      const handle = await env().start<number>('blobWorkflow', { workflowId: 'blob', args: [100_000] });
      expect(await handle.result()).toBe(100_000);
      const largest = await handle.largestPayloadBytes();
      expect(largest).toBeGreaterThan(100_000);
      expect(largest).toBeLessThan(100_200);
      // Started, 3 workflow tasks of 3 events, activity scheduled/started/completed, completed: 11 on a server.
      expect(await handle.historyLength()).toBeLessThanOrEqual(12);
    });
  },
);

describe('workflow bugs on the harness', () => {
  let harness: WorkflowHarness;
  beforeEach(async () => {
    const clock = new FakeClock();
    harness = await WorkflowHarness.create({
      workflowsPath,
      clock,
      activities: fixtureActivities(new ActivityRecorder(), clock),
      searchAttributes: { ResearchStatus: 'KEYWORD' },
    });
  });
  afterEach(() => harness.close());

  it('reports a plain Error thrown by workflow code as a failed workflow task naming the workflow', async () => {
    const handle = await harness.start('buggyWorkflow', { workflowId: 'buggy' });
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowTaskFailedError);
    expect(String(failure)).toMatch(/Workflow task of buggy .* failed: undefined is not a function \(fixture bug\)/);
  });

  it('fails the workflow task that upserts a search attribute the setup does not declare', async () => {
    const handle = await harness.start('statusReportingWorkflow', { workflowId: 'undeclared', args: [1, 10] });
    await expect(handle.result()).rejects.toThrow(/does not declare: ItemsDone/);
  });
});

describe('SDK version guard', () => {
  it('names the expected and installed versions when they differ', () => {
    expect(() => assertHarnessSdkVersion('1.25.0')).toThrow(/drives internals of @temporalio\/worker 1\.24\.0, but 1\.25\.0 is installed/);
  });

  it('accepts the installed SDK', () => {
    expect(() => assertHarnessSdkVersion()).not.toThrow();
  });
});
