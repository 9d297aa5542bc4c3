import { ApplicationFailure } from '@temporalio/common';
import { addInstructionUpdate, researchTaskStateQuery, resolveCreateSignal, webhookReceivedSignal } from '../../src/workflows/definitions';
import { FailureType } from '../../src/domain/failures';
import type { ResearchTaskState } from '../../src/workflows/types';
import { describeScenarios, type ScenarioHandle } from '../support/scenario-env';
import { makeWorld, replaceActivity, researchSetup, type ResearchWorld } from './world';
import type { ResearchTaskResult } from '../../src/domain/research-types';
import { cancelledTask, endedCanceled } from '../support/cancelled';

describeScenarios('researchTaskWorkflow: messages, cancellation and cleanup', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('acts at once on a webhook that arrives while a status poll is in flight', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    const started: { handle?: ScenarioHandle<ResearchTaskResult> } = {};
    // Every poll delivers a webhook notice before it answers, as a webhook racing a poll would.
    replaceActivity('getResearchTask', (original) => async (input) => {
      await started.handle?.signal(webhookReceivedSignal, { deepresearchId: input.deepresearchId, status: 'running' });
      return original(input);
    });
    // Polls an hour apart: only the wake-ups can finish the task within the test.
    const polling = { ...world.polling, initialDelayMs: 3_600_000, maxDelayMs: 3_600_000 };
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'webhook-during-poll',
      args: [{ request: { query: 'Battery recycling', mode: 'fast' }, polling }],
    });
    started.handle = handle;
    // No read follows the create (its answer gave the status): a first webhook starts the chain of reads.
    await handle.signal(webhookReceivedSignal, { status: 'running' });
    const since = Date.now();
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.webhooks).toBeGreaterThanOrEqual(result.polls - 1);
    expect(Date.now() - since).toBeLessThan(30_000);
  });

  it('records malformed signals instead of failing its workflow tasks, and goes on', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'bad-signals',
      args: [{ request: { query: 'Hydrogen electrolysers', mode: 'fast' }, polling: world.polling }],
    });
    // What an operator might send from the UI: no payload, the wrong shapes.
    await handle.signal('webhookReceived');
    await handle.signal('webhookReceived', 'done');
    await handle.signal(resolveCreateSignal, {} as never);
    await handle.signal(resolveCreateSignal, { adoptTaskId: '' });
    await handle.signal('resolveCreate', null);
    let state: ResearchTaskState | undefined;
    await env.waitUntil(async () => (state = await handle.query(researchTaskStateQuery)).rejectedSignals.length === 5, {
      description: 'five rejected signals',
    });
    expect(state!.rejectedSignals.map(({ signal }) => signal)).toEqual([
      'webhookReceived',
      'webhookReceived',
      'resolveCreate',
      'resolveCreate',
      'resolveCreate',
    ]);
    expect(state!.rejectedSignals[0]!.reason).toBe('webhookReceived needs an object like {deepresearchId, status}, got nothing');
    expect(state!.rejectedSignals[3]!.reason).toContain('resolveCreate needs {"adoptTaskId": "<task id>"} or {"createAgain": true}');
    expect((await handle.result()).status).toBe('completed');
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(1);
  });

  it('answers an update in bounded time while the service is down, instead of blocking its caller', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    replaceActivity('addResearchInstruction', () => async () => {
      throw ApplicationFailure.create({ type: FailureType.ServiceUnavailable, message: 'service unavailable (503)' });
    });
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'update-service-down',
      args: [{ request: { query: 'Grid interconnection queues', mode: 'standard' }, polling: world.polling }],
    });
    await env.waitUntil(async () => (await handle.query(researchTaskStateQuery)).status === 'running', { description: 'running' });
    const started = Date.now();
    await expect(handle.executeUpdate(addInstructionUpdate, 'Focus on Texas.')).rejects.toThrow(/instruction refused: .*service unavailable/);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect((await handle.query(researchTaskStateQuery)).instructions).toEqual([
      { instruction: 'Focus on Texas.', accepted: false, reason: expect.stringContaining('service unavailable') },
    ]);
    await handle.cancel();
    await endedCanceled(handle);
  });

  it('keeps the stored outputs when cancelled while storing them', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    let storing = false;
    replaceActivity('storeResearchOutputs', (original) => async (input) => {
      storing = true;
      // Slow enough for the cancel to arrive mid-store.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      return original(input);
    });
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'cancel-while-storing',
      args: [{ request: { query: 'Carbon capture costs', mode: 'fast' }, polling: world.polling }],
    });
    await env.waitUntil(() => storing, { description: 'outputs being stored' });
    await handle.cancel();
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.outputs.report?.bytes).toBeGreaterThan(0);
  });

  it('says the task stays open at the service when cancelled at a checkpoint the service will not cancel', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'cancel-at-checkpoint',
      args: [{ request: { query: 'Green steel', mode: 'fast', hitl: { plan_review: true } }, polling: world.polling }],
    });
    await env.waitUntil(async () => (await handle.query(researchTaskStateQuery)).status === 'awaiting_input', {
      timeoutMs: 3_600_000,
      description: 'the plan review',
    });
    await handle.cancel();
    // Canceled in the UI; the attribute and the state query both say cancel_refused.
    const result = await cancelledTask(handle);
    const atService = await world.api.getTask(result.deepresearchId!);
    expect(['awaiting_input', 'paused']).toContain(atService.status);
    expect(result.status).toBe('cancel_refused');
    expect(result.detail).toContain('the service refused to cancel the task');
    expect(await handle.searchAttributes()).toMatchObject({ ResearchStatus: 'cancel_refused' });
  });
});
