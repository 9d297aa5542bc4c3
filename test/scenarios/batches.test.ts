import { readFile } from 'node:fs/promises';
import { endedCanceled } from '../support/cancelled';
import { fileURLToPath } from 'node:url';
import { researchBatchStateQuery, resumeSignal } from '../../src/workflows/definitions';
import { FailureType } from '../../src/domain/failures';
import type { ResearchBatchResult } from '../../src/workflows/types';
import { describeScenarios, recordHistory } from '../support/scenario-env';
import { ApplicationFailure } from '@temporalio/common';
import { makeWorld, replaceActivity, researchSetup, type ResearchWorld } from './world';

const tasks = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ id: `company-${index + 1}`, query: `Profile of company ${index + 1}: products, pricing, news` }));

describeScenarios('researchBatchWorkflow', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('adds 250 tasks in 3 calls, follows the batch to completion and stores every output', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 1_000 } });
    const handle = await env.start<ResearchBatchResult>('researchBatchWorkflow', {
      workflowId: 'batch-250',
      args: [{ batch: { name: 'companies', mode: 'fast' }, tasks: tasks(250), context: { pipeline: 'companies', run: 'r1' }, polling: world.polling }],
    });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.counts).toMatchObject({ total: 250, completed: 250 });
    expect(result.tasks).toHaveLength(250);
    expect(new Set(result.tasks.map((task) => task.batchTaskId)).size).toBe(250);
    const stats = world.emulator.stats.snapshot();
    expect(stats.requests['batches.addTasks']).toEqual({ 200: 3 });
    expect(stats.tasksCreated).toBe(250);
    const report = await readFile(fileURLToPath(result.tasks[0]!.report!.uri), 'utf8');
    expect(report.length).toBe(result.tasks[0]!.report!.bytes);
    expect(await handle.searchAttributes()).toMatchObject({ ResearchStatus: 'completed', ResearchMode: 'fast', ResearchPipeline: 'companies' });
    expect(await handle.query(researchBatchStateQuery)).toMatchObject({ phase: 'done', tasksAdded: 250, collected: 250 });
    expect(result.collectedCount).toBe(250);
    expect(result.tasksTruncated).toBe(false);
    const manifests = await Promise.all(result.manifests.map(async (ref) => (await readFile(fileURLToPath(ref.uri), 'utf8')).trim().split('\n')));
    expect(
      manifests
        .flat()
        .map((line) => (JSON.parse(line) as { batchTaskId: string }).batchTaskId)
        .sort(),
    ).toEqual(result.tasks.map((task) => task.batchTaskId).sort());
    await recordHistory(handle, 'batch-250');
  });

  it('continues as new while adding, following and collecting, without adding anything twice', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 1_000 } });
    const handle = await env.start<ResearchBatchResult>('researchBatchWorkflow', {
      workflowId: 'batch-continued',
      args: [{ batch: { mode: 'fast' }, tasks: tasks(250), polling: world.polling, continueAsNewAfterEvents: 12 }],
    });
    const result = await handle.result();
    expect(await handle.runCount()).toBeGreaterThan(3);
    expect(result).toMatchObject({ status: 'completed', collectedCount: 250 });
    expect(new Set(result.tasks.map((task) => task.batchTaskId)).size).toBe(250);
    const stats = world.emulator.stats.snapshot();
    expect(stats.requests['batches.create']).toEqual({ 200: 1 });
    expect(stats.requests['batches.addTasks']).toEqual({ 200: 3 });
    expect(stats.tasksCreated).toBe(250);
  });

  it('waits for a top-up after 402 while adding tasks, then adds the rest once', async () => {
    const env = getEnv();
    // Enough credit for the first 100 fast tasks only.
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 12 } });
    const handle = await env.start<ResearchBatchResult>('researchBatchWorkflow', {
      workflowId: 'batch-credits',
      args: [{ batch: { mode: 'fast' }, tasks: tasks(150), polling: world.polling }],
    });
    await env.waitUntil(async () => (await handle.query(researchBatchStateQuery)).detail?.includes('credits exhausted') ?? false, {
      description: 'credits exhausted',
    });
    expect(await handle.query(researchBatchStateQuery)).toMatchObject({ phase: 'adding', tasksAdded: 100 });
    world.emulator.accounts.topUp(world.emulator.defaultApiKey, 100);
    await handle.signal(resumeSignal);
    const result = await handle.result();
    expect(result.counts).toMatchObject({ total: 150, completed: 150 });
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(150);
  });

  it('cancels the batch at the service and collects what finished', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 1_000, research: { capacity: 5 } } });
    const handle = await env.start<ResearchBatchResult>('researchBatchWorkflow', {
      workflowId: 'batch-cancel',
      args: [{ batch: { mode: 'fast' }, tasks: tasks(40), polling: world.polling }],
    });
    await env.waitUntil(
      async () => {
        const state = await handle.query(researchBatchStateQuery);
        return (state.counts?.completed ?? 0) >= 5;
      },
      { timeoutMs: 3_600_000, description: 'five tasks completed' },
    );
    await handle.cancel();
    // Cancelled by request, the batch ends Canceled; its state query keeps what it collected.
    await endedCanceled(handle);
    const result = (await handle.query(researchBatchStateQuery)).result!;
    expect(result.status).toBe('cancelled');
    expect(result.counts.cancelled).toBeGreaterThan(0);
    expect(result.counts.completed).toBeGreaterThanOrEqual(5);
    expect(result.tasks.filter((task) => task.status === 'completed').every((task) => task.report !== undefined)).toBe(true);
    expect((await world.api.getBatch(result.batchId)).status).toBe('cancelled');
  });

  it('cancelled while adding, finishes the chunk in flight, counts it, and adds nothing after', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 1_000 } });
    let adding = false;
    replaceActivity('addResearchBatchTasks', (original) => async (input) => {
      adding = true;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      return original(input);
    });
    const handle = await env.start<ResearchBatchResult>('researchBatchWorkflow', {
      workflowId: 'batch-cancel-adding',
      args: [{ batch: { mode: 'fast' }, tasks: tasks(300), polling: world.polling }],
    });
    await env.waitUntil(() => adding, { description: 'the first chunk being added' });
    await handle.cancel();
    // Cancelled by request, the batch ends Canceled; its state query keeps what it collected.
    await endedCanceled(handle);
    const result = (await handle.query(researchBatchStateQuery)).result!;
    const stats = world.emulator.stats.snapshot();
    expect(stats.requests['batches.addTasks']).toEqual({ 200: 1 });
    expect(stats.tasksCreated).toBe(100);
    // The workflow knows what the service has: the chunk in flight was finished, not abandoned.
    expect(await handle.query(researchBatchStateQuery)).toMatchObject({ tasksAdded: 100 });
    expect(result.status).toBe('cancelled');
  });

  it('still collects what finished when the service refuses to cancel the batch', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 1_000 } });
    replaceActivity('cancelResearchBatch', () => async () => {
      throw ApplicationFailure.create({ type: FailureType.InvalidRequest, message: 'batch cannot be cancelled in its current state', nonRetryable: true });
    });
    const handle = await env.start<ResearchBatchResult>('researchBatchWorkflow', {
      workflowId: 'batch-cancel-refused',
      args: [{ batch: { mode: 'fast' }, tasks: tasks(20), polling: world.polling }],
    });
    await env.waitUntil(async () => (await handle.query(researchBatchStateQuery)).phase === 'following', { description: 'following the batch' });
    await handle.cancel();
    // Cancelled by request, the batch ends Canceled; its state query keeps what it collected.
    await endedCanceled(handle);
    const result = (await handle.query(researchBatchStateQuery)).result!;
    expect(result.collectedCount).toBe(20);
    expect((await handle.query(researchBatchStateQuery)).detail).toContain(
      'the service refused to cancel the batch: batch cannot be cancelled in its current state',
    );
  });

  it('takes its tasks by reference when their queries would not fit in a payload, adding each once across continue-as-new', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 1_000 } });
    // 120 queries of 25,000 characters: 3 MB, past Temporal's 2 MB payload limit if passed inline.
    const big = Array.from({ length: 120 }, (_, index) => ({
      id: `filing-${index + 1}`,
      query: `Filing ${index + 1}: ${'risk factors and liquidity. '.repeat(900)}`.slice(0, 25_000),
    }));
    expect(Buffer.byteLength(JSON.stringify(big))).toBeGreaterThan(2 * 1024 * 1024);
    const ref = await world.store.put('inputs/filings.jsonl', big.map((task) => JSON.stringify(task)).join('\n'), 'application/x-ndjson');
    const handle = await env.start<ResearchBatchResult>('researchBatchWorkflow', {
      workflowId: 'batch-by-reference',
      args: [{ batch: { mode: 'fast' }, tasks: [], tasksRef: { key: ref.key, count: big.length }, polling: world.polling, continueAsNewAfterEvents: 12 }],
    });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', collectedCount: 120 });
    expect(await handle.runCount()).toBeGreaterThan(1);
    const stats = world.emulator.stats.snapshot();
    // Two chunks of at most 100, each sent in as many calls as keep the body under the size limit.
    expect(Object.keys(stats.requests['batches.addTasks'] ?? {})).toEqual(['200']);
    expect(stats.tasksCreated).toBe(120);
    expect(await handle.largestPayloadBytes()).toBeLessThan(256 * 1024);
    expect(await handle.payloadsContain('risk factors and liquidity')).toBe(false);
    await recordHistory(handle, 'batch-by-reference');
  });

  it('refuses a task list by reference that names no tasks, before calling the service', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    const handle = await env.start<ResearchBatchResult>('researchBatchWorkflow', {
      workflowId: 'batch-bad-reference',
      args: [{ batch: { mode: 'fast' }, tasks: [], tasksRef: { key: 'inputs/none.jsonl', count: 0 } }],
    });
    const failure = await handle.result().then(
      () => undefined,
      (error: unknown) => error as Error & { cause?: { message?: string } },
    );
    expect(failure?.cause?.message).toContain('tasksRef.count: must be a whole number of tasks, at least 1');
    expect(world.emulator.stats.snapshot().requests['batches.create']).toBeUndefined();
  });

  it('refuses batch limits up front without calling the service', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    const handle = await env.start<ResearchBatchResult>('researchBatchWorkflow', {
      workflowId: 'batch-refused',
      args: [{ batch: { mode: 'fast', hitl: { plan_review: true } }, tasks: tasks(2) }],
    });
    const failure = await handle.result().then(
      () => undefined,
      (error: unknown) => error as Error & { cause?: { type?: string; message?: string } },
    );
    expect(failure?.cause?.type).toBe(FailureType.InvalidInput);
    expect(failure?.cause?.message).toContain('batch.hitl: batch tasks cannot use checkpoints (hitl)');
    expect(world.emulator.stats.snapshot().requests['batches.create']).toBeUndefined();
  });
});
