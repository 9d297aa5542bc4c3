import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { researchTaskStateQuery, resolveCreateSignal, resumeSignal } from '../../src/workflows/definitions';
import { FailureType } from '../../src/domain/failures';
import { describeScenarios, recordHistory } from '../support/scenario-env';
import { ApplicationFailure } from '@temporalio/common';
import { makeWorld, replaceActivity, researchSetup, type ResearchWorld } from './world';
import type { ResearchTaskResult } from '../../src/domain/research-types';
import { cancelledTask } from '../support/cancelled';

describeScenarios('researchTaskWorkflow: cancellation, failures and faults', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('cancels a running task at the service and returns its partial output', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'cancel-running',
      args: [{ request: { query: 'Semiconductor export controls', mode: 'standard' }, polling: world.polling }],
    });
    await env.waitUntil(async () => ((await handle.query(researchTaskStateQuery)).progress?.currentStep ?? 0) >= 4, {
      timeoutMs: 3_600_000,
      description: 'step 4',
    });
    await handle.cancel();
    // It ends Canceled (as the Temporal UI shows it); the state query keeps the outcome.
    const result = await cancelledTask(handle);
    expect(result.status).toBe('cancelled');
    expect((await world.api.getTask(result.deepresearchId!)).status).toBe('cancelled');
    expect(result.outputs?.sources).toBeDefined();
    expect(await handle.searchAttributes()).toMatchObject({ ResearchStatus: 'cancelled' });
    await recordHistory(handle, 'task-cancelled');
  });

  it('cancels a task still queued behind others', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { research: { capacity: 1 } } });
    await world.api.createTask({ query: 'Occupies the only slot', mode: 'max' });
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'cancel-queued',
      args: [{ request: { query: 'Waits in the queue', mode: 'fast' }, polling: world.polling }],
    });
    await env.waitUntil(async () => (await handle.query(researchTaskStateQuery)).status === 'queued', { description: 'queued' });
    await handle.cancel();
    const result = await cancelledTask(handle);
    expect(result.status).toBe('cancelled');
    expect((await world.api.getTask(result.deepresearchId!)).status).toBe('cancelled');
  });

  it('fails the workflow with the service error text when the task fails', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { research: { failureRate: 1 } } });
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'failed',
      args: [{ request: { query: 'Doomed', mode: 'fast' }, polling: world.polling }],
    });
    const failure = await handle.result().then(
      () => undefined,
      (error: unknown) => error as Error & { cause?: { type?: string; message?: string } },
    );
    expect(failure?.cause?.type).toBe(FailureType.TaskFailed);
    const task = (await world.api.listTasks({ limit: 1 }))[0]!;
    const { error } = await world.api.getTask(task.deepresearch_id);
    expect(error).toBeTruthy();
    expect(failure?.cause?.message).toContain(error!);
  });

  it('waits for an operator after 402, then creates the task once credits are topped up', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 0 } });
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'credits',
      args: [{ request: { query: 'Tariff exposure of EU retailers', mode: 'fast' }, polling: world.polling }],
    });
    await env.waitUntil(async () => (await handle.query(researchTaskStateQuery)).waitingFor === 'credits_exhausted', { description: 'credits_exhausted' });
    expect((await handle.query(researchTaskStateQuery)).detail).toMatch(/top up.*resume/);
    await world.pass(3_600_000);
    world.emulator.accounts.topUp(world.emulator.defaultApiKey, 5);
    await handle.signal(resumeSignal);
    const result = await handle.result();
    expect(result.status).toBe('completed');
    const stats = world.emulator.stats.snapshot();
    expect(stats.tasksCreated).toBe(1);
    // The create after the resume is a new activity (attempt 1): it still looked for an earlier one's task first.
    expect(stats.requests['deepresearch.list']).toBeDefined();
    await recordHistory(handle, 'task-credits-wait');
  });

  it('waits for an operator when the key is refused while following the task, and goes on after resume', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    let refused = false;
    replaceActivity('getResearchTask', (original) => async (input) => {
      if (refused) throw ApplicationFailure.create({ type: FailureType.Unauthorized, message: 'Invalid API key', nonRetryable: true });
      return original(input);
    });
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'key-refused',
      args: [{ request: { query: 'Port congestion', mode: 'fast' }, polling: world.polling }],
    });
    await env.waitUntil(async () => (await handle.query(researchTaskStateQuery)).status === 'running', { description: 'running' });
    refused = true;
    await env.waitUntil(async () => (await handle.query(researchTaskStateQuery)).waitingFor === 'operator', { description: 'waiting for an operator' });
    expect((await handle.query(researchTaskStateQuery)).detail).toMatch(/401.*RESEARCH_API_KEY.*resume/);
    refused = false;
    await handle.signal(resumeSignal);
    expect((await handle.result()).status).toBe('completed');
    await recordHistory(handle, 'task-operator-wait');
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(1);
  });

  it('waits out 429 Retry-After on status reads and still completes', async () => {
    const env = getEnv();
    // Retry-After is honoured by the server's activity retry timer: real seconds, not scenario time.
    const retryAfterSeconds = 1;
    world = await makeWorld(env, { emulator: { faults: { 'deepresearch.status': { rateLimitBurst: { every: 2, count: 2, retryAfterSeconds } } } } });
    const started = Date.now();
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'rate-limited',
      args: [{ request: { query: 'Lithium supply', mode: 'fast' }, polling: world.polling }],
    });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    const statuses = world.emulator.stats.snapshot().requests['deepresearch.status'] ?? {};
    expect(statuses['429']).toBeGreaterThanOrEqual(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(retryAfterSeconds * 1000 * (statuses['429'] ?? 0));
  });

  it('reconciles a create whose answer was lost instead of creating the task twice', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { faults: { 'deepresearch.create': { dropAfterProcessingRate: 1 } } } });
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'lost-create',
      args: [{ request: { query: 'Critical minerals policy', mode: 'fast' }, polling: world.polling }],
    });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    const stats = world.emulator.stats.snapshot();
    expect(stats.tasksCreated).toBe(1);
    expect(Math.max(...Object.values(stats.tasksCreatedByMetadata))).toBe(1);
    expect(stats.requests['deepresearch.list']).toBeDefined();
    await recordHistory(handle, 'task-lost-create');
  });

  it('waits for an operator when a create was lost and the task list cannot be read, then adopts the task named', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { faults: { 'deepresearch.create': { dropAfterProcessingRate: 1 }, 'deepresearch.list': { errorRate: 1 } } } });
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'lost-create-no-list',
      args: [{ request: { query: 'Rare earth magnets', mode: 'fast' }, polling: world.polling }],
    });
    await env.waitUntil(async () => (await handle.query(researchTaskStateQuery)).detail?.includes('cannot be read') ?? false, {
      timeoutMs: 3_600_000,
      description: 'a request for an operator decision',
    });
    expect(await handle.query(researchTaskStateQuery)).toMatchObject({ waitingFor: 'reconciling_create', status: 'creating' });
    // The operator looks the task up (the list works again for them) and names it.
    world.emulator.faults.replace({});
    const [made] = await world.api.listTasks({ limit: 1 });
    await handle.signal(resolveCreateSignal, { adoptTaskId: made!.deepresearch_id });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', deepresearchId: made!.deepresearch_id });
    await recordHistory(handle, 'task-resolve-create');
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(1);
  });

  it('cancelled while a lost create is unresolved, looks once more and cancels the task it made', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { faults: { 'deepresearch.create': { dropAfterProcessingRate: 1 }, 'deepresearch.list': { errorRate: 1 } } } });
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'lost-create-cancelled',
      args: [{ request: { query: 'Sodium-ion batteries', mode: 'heavy' }, polling: world.polling }],
    });
    await env.waitUntil(async () => (await handle.query(researchTaskStateQuery)).detail?.includes('cannot be read') ?? false, {
      timeoutMs: 3_600_000,
      description: 'a request for an operator decision',
    });
    // The list works again; instead of deciding, the operator cancels the run.
    world.emulator.faults.replace({});
    await handle.cancel();
    const result = await cancelledTask(handle);
    const [made] = await world.api.listTasks({ limit: 1 });
    expect(result).toMatchObject({ status: 'cancelled', deepresearchId: made!.deepresearch_id });
    expect((await world.api.getTask(made!.deepresearch_id)).status).toBe('cancelled');
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(1);
  });

  it('deletes the task at the service once its outputs are stored, when asked to', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'delete-after',
      args: [{ request: { query: 'Grid batteries', mode: 'fast' }, polling: world.polling, deleteAfterStore: true }],
    });
    const result = await handle.result();
    expect(result.outputs.report?.bytes).toBeGreaterThan(0);
    await expect(world.api.getTask(result.deepresearchId)).rejects.toMatchObject({ status: 404 });
    await recordHistory(handle, 'task-delete-after');
  });

  it('stores deliverables and the PDF while history keeps only references', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'deliverables',
      args: [
        {
          request: {
            query: 'Data centre power demand',
            mode: 'fast',
            output_formats: ['markdown', 'pdf'],
            deliverables: ['A CSV of demand by region', { type: 'xlsx', description: 'Capacity model' }],
          },
          polling: world.polling,
        },
      ],
    });
    const result = await handle.result();
    expect(result.outputs.deliverables).toHaveLength(2);
    expect(result.outputs.pdf?.contentType).toBe('application/pdf');
    const csv = result.outputs.deliverables.find((file) => file.key.endsWith('.csv'))!;
    expect((await readFile(fileURLToPath(csv.uri), 'utf8')).split('\n').length).toBeGreaterThan(1);
    const stored = [result.outputs.report!, result.outputs.pdf!, ...result.outputs.deliverables].reduce((sum, ref) => sum + ref.bytes, 0);
    const largest = await handle.largestPayloadBytes();
    expect(largest).toBeLessThan(16_384);
    expect(largest).toBeLessThan(stored);
  });
});
