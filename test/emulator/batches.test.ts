import { ResearchApiError } from '../../src/api/errors';
import type { BatchTask } from '../../src/api/schemas';
import { verifyWebhookSignature } from '../../src/api/webhooks';
import { minutes, type ResearchHarness, startResearchHarness, startWebhookReceiver, textField } from '../support/research-harness';

async function apiError(promise: Promise<unknown>): Promise<ResearchApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ResearchApiError)) throw new Error(`expected a ResearchApiError, got ${String(error)}`);
  return error;
}

const entries = (from: number, count: number) =>
  Array.from({ length: count }, (_, index) => ({ id: `item-${from + index}`, query: `Question number ${from + index} about district heating` }));

describe('DeepResearch batches', () => {
  let h: ResearchHarness;
  afterEach(async () => h.close());

  async function allTasks(batchId: string, query: { status?: BatchTask['status']; include_output?: boolean; limit?: number } = {}): Promise<BatchTask[]> {
    const tasks: BatchTask[] = [];
    for await (const page of h.client.listBatchTasks(batchId, { limit: 100, ...query })) tasks.push(...page.tasks);
    return tasks;
  }

  test('a new batch is open with zero counts and can be fetched and listed', async () => {
    h = await startResearchHarness();
    const batch = await h.client.createBatch({ name: 'Weekly scan', mode: 'fast', metadata: { run: 'r1' } });
    expect(batch).toMatchObject({
      status: 'open',
      name: 'Weekly scan',
      mode: 'fast',
      cost: 0,
      metadata: { run: 'r1' },
      counts: { total: 0, queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 },
    });
    expect(batch.batch_id).toMatch(/^batch_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(batch.webhook_secret).toBeUndefined();
    expect(await h.client.getBatch(batch.batch_id)).toMatchObject({ batch_id: batch.batch_id, status: 'open' });
    const second = await h.client.createBatch({});
    expect((await h.client.listBatches()).map((item) => item.batch_id)).toEqual([second.batch_id, batch.batch_id]);
  });

  test('250 tasks added in three calls run with the batch configuration and are followed to completion page by page', async () => {
    h = await startResearchHarness();
    const receiver = await startWebhookReceiver();
    try {
      const batch = await h.client.createBatch({ mode: 'fast', output_formats: ['markdown'], webhook_url: receiver.url, metadata: { run: 'big' } });
      const secret = String(batch.webhook_secret);
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      const before = h.emulator.accounts.all()[0]!.creditsUsd;
      const first = await h.client.addBatchTasks(batch.batch_id, entries(0, 100));
      expect(first).toMatchObject({ batch_id: batch.batch_id, added: 100 });
      expect(first.tasks[0]).toEqual({ task_id: 'item-0', deepresearch_id: expect.any(String), status: 'queued' });
      await h.client.addBatchTasks(batch.batch_id, entries(100, 100));
      const third = await h.client.addBatchTasks(batch.batch_id, entries(200, 50));
      expect(third.counts).toEqual({ total: 250, queued: 150, running: 100, completed: 0, failed: 0, cancelled: 0 });
      expect(before - h.emulator.accounts.all()[0]!.creditsUsd).toBeCloseTo(25, 6);
      expect(await h.client.getBatch(batch.batch_id)).toMatchObject({ status: 'processing', cost: 25 });
      expect(h.emulator.stats.snapshot().tasksCreated).toBe(250);
      expect(Math.max(...Object.values(h.emulator.stats.snapshot().tasksCreatedByMetadata))).toBe(1);

      const one = await h.client.getTask(first.tasks[0]!.deepresearch_id);
      expect(one).toMatchObject({ mode: 'fast', batch_id: batch.batch_id, batch_task_id: 'item-0', metadata: { run: 'big' }, status: 'running' });
      expect(JSON.stringify(await h.client.getBatch(batch.batch_id))).not.toContain(secret);

      await h.advance(minutes(3));
      expect((await h.client.getBatch(batch.batch_id)).counts).toMatchObject({ completed: 100, running: 100, queued: 50 });
      await h.advance(minutes(6));
      const done = await h.client.getBatch(batch.batch_id);
      expect(done).toMatchObject({ status: 'completed', counts: { total: 250, completed: 250, queued: 0, running: 0 } });

      const pages = [];
      for await (const page of h.client.listBatchTasks(batch.batch_id, { limit: 100 })) pages.push(page);
      expect(pages.map((page) => page.pagination.count)).toEqual([100, 100, 50]);
      expect(pages.map((page) => page.pagination.has_more)).toEqual([true, true, false]);
      const listed = pages.flatMap((page) => page.tasks);
      expect(listed.map((task) => task.task_id)).toEqual(entries(0, 250).map((entry) => entry.id));
      expect(listed.every((task) => task.status === 'completed' && task.output === undefined)).toBe(true);

      const [webhook] = await receiver.waitFor(1);
      expect(webhook!.json).toMatchObject({
        event: 'batch.completed',
        batch_id: batch.batch_id,
        status: 'completed',
        counts: { total: 250, completed: 250 },
        cost: 25,
        metadata: { run: 'big' },
      });
      expect(
        verifyWebhookSignature({
          secret,
          signature: webhook!.headers['x-webhook-signature'],
          timestamp: webhook!.headers['x-webhook-timestamp'],
          body: webhook!.raw,
          now: h.clock.now(),
        }).ok,
      ).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  test('the task listing filters by status and includes outputs only when asked', async () => {
    h = await startResearchHarness({ capacity: 2 });
    const batch = await h.client.createBatch({ mode: 'fast' });
    await h.client.addBatchTasks(batch.batch_id, entries(0, 5));
    await h.advance(minutes(3));
    const completed = await allTasks(batch.batch_id, { status: 'completed' });
    expect(completed.map((task) => task.task_id)).toEqual(['item-0', 'item-1']);
    expect(completed[0]!.output).toBeUndefined();
    const withOutput = await allTasks(batch.batch_id, { status: 'completed', include_output: true });
    expect(String(withOutput[0]!.output)).toMatch(/^# Question number 0/);
    expect(withOutput[0]!.sources?.length).toBeGreaterThan(0);
    expect((await allTasks(batch.batch_id, { status: 'queued' })).length).toBe(1);
    const paged = await allTasks(batch.batch_id, { limit: 2 });
    expect(paged.length).toBe(5);
  });

  test('invalid listing parameters are refused with 400 naming the parameter', async () => {
    h = await startResearchHarness();
    const batch = await h.client.createBatch({});
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=abc', 'limit'],
      ['status=done', 'status'],
      ['include_output=yes', 'include_output'],
      ['last_key=nope', 'last_key'],
      ['colour=red', 'colour'],
    ]) {
      const refused = await h.call('GET', `/deepresearch/batches/${batch.batch_id}/tasks?${query}`);
      expect(refused.status).toBe(400);
      expect(textField(refused.json, 'error')).toContain(field);
    }
  });

  test('duplicate task ids are refused with 400, within one call and across calls', async () => {
    h = await startResearchHarness();
    const batch = await h.client.createBatch({ mode: 'fast' });
    const within = await h.call('POST', `/deepresearch/batches/${batch.batch_id}/tasks`, {
      tasks: [
        { id: 'a', query: 'q1' },
        { id: 'a', query: 'q2' },
      ],
    });
    expect(within.status).toBe(400);
    expect(textField(within.json, 'error')).toContain('tasks[1].id: duplicate task id "a"');
    await h.client.addBatchTasks(batch.batch_id, [{ id: 'a', query: 'q1' }]);
    const across = await apiError(
      h.client.addBatchTasks(batch.batch_id, [
        { id: 'b', query: 'q2' },
        { id: 'a', query: 'q3' },
      ]),
    );
    expect(across.status).toBe(400);
    expect(across.serviceMessage).toContain('tasks[1].id: duplicate task id "a" (already in this batch)');
    expect((await h.client.getBatch(batch.batch_id)).counts.total).toBe(1);
  });

  test('an add of more than 100 tasks, or none, is refused with 400', async () => {
    h = await startResearchHarness();
    const batch = await h.client.createBatch({});
    expect((await h.call('POST', `/deepresearch/batches/${batch.batch_id}/tasks`, { tasks: entries(0, 101) })).status).toBe(400);
    expect((await h.call('POST', `/deepresearch/batches/${batch.batch_id}/tasks`, { tasks: [] })).status).toBe(400);
  });

  test('an add the balance cannot fully cover is refused with 402 and adds nothing', async () => {
    h = await startResearchHarness({}, { accounts: [{ key: 'key_small_balance', creditsUsd: 1 }] });
    const created = await h.call('POST', '/deepresearch/batches', { mode: 'standard' }, 'key_small_balance');
    const batchId = textField(created.json, 'batch_id');
    const refused = await h.call('POST', `/deepresearch/batches/${batchId}/tasks`, { tasks: entries(0, 3) }, 'key_small_balance');
    expect(refused.status).toBe(402);
    const batch = await h.call('GET', `/deepresearch/batches/${batchId}`, undefined, 'key_small_balance');
    expect(batch.json).toMatchObject({ status: 'open', counts: { total: 0 }, cost: 0 });
    expect(h.emulator.accounts.find('key_small_balance')!.creditsUsd).toBe(1);
  });

  test('cancelling a batch cancels its queued and running tasks; adding to or cancelling it again is a 409', async () => {
    h = await startResearchHarness({ capacity: 3 });
    const batch = await h.client.createBatch({ mode: 'fast' });
    await h.client.addBatchTasks(batch.batch_id, entries(0, 10));
    await h.advance(minutes(3));
    const cancelled = await h.client.cancelBatch(batch.batch_id);
    expect(cancelled).toEqual({ batch_id: batch.batch_id, status: 'cancelled', cancelled_count: 7, message: expect.stringContaining('7') });
    expect(await h.client.getBatch(batch.batch_id)).toMatchObject({
      status: 'cancelled',
      counts: { total: 10, completed: 3, cancelled: 7, running: 0, queued: 0 },
    });
    await h.advance(minutes(10));
    expect((await h.client.getBatch(batch.batch_id)).status).toBe('cancelled');
    const add = await apiError(h.client.addBatchTasks(batch.batch_id, entries(10, 1)));
    expect(add.status).toBe(409);
    expect(add.serviceMessage).toBe('Batch is cancelled; tasks can be added only while it is open or processing');
    const again = await apiError(h.client.cancelBatch(batch.batch_id));
    expect(again.status).toBe(409);
    expect(again.serviceMessage).toBe('Batch is already cancelled; only open or processing batches can be cancelled');
  });

  test('a finished batch refuses more tasks with 409', async () => {
    h = await startResearchHarness();
    const batch = await h.client.createBatch({ mode: 'fast' });
    await h.client.addBatchTasks(batch.batch_id, entries(0, 2));
    await h.advance(minutes(3));
    expect((await h.client.getBatch(batch.batch_id)).status).toBe('completed');
    const add = await apiError(h.client.addBatchTasks(batch.batch_id, entries(2, 1)));
    expect(add.status).toBe(409);
    expect(add.serviceMessage).toMatch(/^Batch is completed/);
  });

  test('a batch whose tasks fail finishes as completed_with_errors', async () => {
    h = await startResearchHarness({ failureRate: 0.5 });
    const batch = await h.client.createBatch({ mode: 'fast' });
    await h.client.addBatchTasks(batch.batch_id, entries(0, 20));
    await h.advance(minutes(3));
    const done = await h.client.getBatch(batch.batch_id);
    expect(done.status).toBe('completed_with_errors');
    expect(done.counts.failed).toBeGreaterThan(0);
    expect(done.counts.completed + done.counts.failed).toBe(20);
    const failed = await allTasks(batch.batch_id, { status: 'failed' });
    expect(failed.every((task) => typeof task.error === 'string')).toBe(true);
  });

  test('batch-only restrictions and unknown batches are refused clearly', async () => {
    h = await startResearchHarness();
    const withHitl = await h.call('POST', '/deepresearch/batches', { mode: 'fast', hitl: { plan_review: true } });
    expect(withHitl.status).toBe(400);
    expect(textField(withHitl.json, 'error')).toContain('hitl: batch tasks cannot use checkpoints (hitl)');
    const notFound = { status: 404, json: { success: false, error: 'Batch not found' } };
    expect(await h.call('GET', '/deepresearch/batches/batch_missing')).toEqual(notFound);
    expect(await h.call('GET', '/deepresearch/batches/batch_missing/tasks')).toEqual(notFound);
    expect(await h.call('POST', '/deepresearch/batches/batch_missing/tasks', { tasks: entries(0, 1) })).toEqual(notFound);
    expect(await h.call('POST', '/deepresearch/batches/batch_missing/cancel')).toEqual(notFound);
  });
});
