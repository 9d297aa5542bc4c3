import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { researchBatchStateQuery } from '../../../src/workflows/definitions';
import type { ResearchBatchResult } from '../../../src/workflows/types';
import { endedCanceled } from '../../support/cancelled';
import { describeScenarios } from '../../support/scenario-env';
import { makeWorld, researchSetup, type ResearchWorld } from '../world';

const tasks = (count: number) => Array.from({ length: count }, (_, index) => ({ id: `company-${index + 1}`, query: `Profile of company ${index + 1}` }));

describeScenarios('money safety: cancelled before the paid call', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  // The cancel reaches the workflow in its first task, before any create could be sent (a start delay
  // holds the first task back while the cancel is requested).
  it.each([
    ['researchTaskWorkflow', { request: { query: 'Tariff exposure of EU retailers', mode: 'fast' } }],
    ['researchBatchWorkflow', { batch: { mode: 'fast' }, tasks: tasks(5) }],
  ] as const)('%s cancelled before its create creates nothing and is charged nothing', async (workflowType, args) => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const handle = await env.client.workflow.start(workflowType, {
      taskQueue: env.taskQueue,
      workflowId: `cancel-before-${workflowType}`,
      args: [{ ...args, polling: world.polling }],
      startDelay: '2 seconds',
    });
    await handle.cancel();
    const error = await handle.result().catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    const stats = world.emulator.stats.snapshot();
    expect(stats.tasksCreated).toBe(0);
    expect(stats.requests['deepresearch.create'] ?? {}).toEqual({});
    expect(stats.requests['batches.create'] ?? {}).toEqual({});
    expect(stats.chargedUsd).toBe(0);
  });

  it('a batch cancelled while it waits for a top-up after 402 ends: the batch is cancelled at the service, what was added is collected, nothing more is added', async () => {
    const env = getEnv();
    // Enough credit for the first 100 fast tasks only.
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 12 } });
    const handle = await env.start<ResearchBatchResult>('researchBatchWorkflow', {
      workflowId: 'batch-credits-cancelled',
      args: [{ batch: { mode: 'fast' }, tasks: tasks(150), polling: world.polling }],
    });
    await env.waitUntil(async () => (await handle.query(researchBatchStateQuery)).detail?.includes('credits exhausted') ?? false, {
      description: 'credits exhausted',
    });
    await handle.cancel();
    // It ends Canceled after collecting; its state query keeps what it collected.
    await endedCanceled(handle);
    const result = (await handle.query(researchBatchStateQuery)).result!;
    expect(result.counts.total).toBe(100);
    const stats = world.emulator.stats.snapshot();
    expect(stats.tasksCreated).toBe(100);
    expect(stats.requests['batches.cancel']).toEqual({ 200: 1 });
  });
});
