import { ResearchApiError } from '../../src/api/errors';
import { minutes, type ResearchHarness, startResearchHarness, textField } from '../support/research-harness';

const QUERY = 'Battery supply chain risks for European EV makers';

async function apiError(promise: Promise<unknown>): Promise<ResearchApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ResearchApiError)) throw new Error(`expected a ResearchApiError, got ${String(error)}`);
  return error;
}

describe('DeepResearch task lifecycle', () => {
  let h: ResearchHarness;
  afterEach(async () => h.close());

  test('a created task runs, reports step progress over emulator time, and completes with a cited report', async () => {
    h = await startResearchHarness();
    const created = await h.client.createTask({ query: QUERY, mode: 'fast', metadata: { item: 'a' } });
    expect(created).toMatchObject({ status: 'running', mode: 'fast', created_at: '2025-01-01T00:00:00.000Z', metadata: { item: 'a' }, public: false });
    expect(created.message).toBeUndefined();
    expect(created.webhook_secret).toBeUndefined();

    const first = await h.client.getTask(created.deepresearch_id);
    expect(first.progress).toEqual({ current_step: 1, total_steps: 10 });
    await h.advance(minutes(1.5));
    const middle = await h.client.getTask(created.deepresearch_id);
    expect(middle.status).toBe('running');
    expect(middle.progress).toEqual({ current_step: 6, total_steps: 10 });
    expect(middle.messages?.length).toBeGreaterThan(0);
    expect(middle.output).toBeUndefined();

    await h.advance(minutes(1.5));
    const done = await h.client.getTask(created.deepresearch_id);
    expect(done).toMatchObject({ status: 'completed', output_type: 'markdown', cost: 0.1, completed_at: '2025-01-01T00:03:00.000Z' });
    expect(done.progress).toBeUndefined();
    expect(done.cost_breakdown).toEqual({ task: 0.1 });
    expect(typeof done.output).toBe('string');
    const report = String(done.output);
    expect(report).toMatch(/^# Battery supply chain risks/);
    expect(report).toMatch(/\[1\]/);
    expect(done.sources?.length).toBe(6);
    for (const source of done.sources ?? []) expect(report).toContain(String(source.url));
    expect(done.images?.[0]).toMatchObject({
      image_id: 'image-1',
      image_type: 'chart',
      image_url: expect.stringMatching(/\/v1\/deepresearch\/tasks\/.+\/assets\/image-1\?token=/),
      created_at: expect.any(Number),
    });
  });

  test('the status route answers at both /status and the bare task path', async () => {
    h = await startResearchHarness();
    const { deepresearch_id: id } = await h.client.createTask({ query: QUERY });
    const bare = await h.call('GET', `/deepresearch/tasks/${id}`);
    const status = await h.call('GET', `/deepresearch/tasks/${id}/status`);
    expect(bare.status).toBe(200);
    expect(bare.json).toEqual(status.json);
  });

  test('deprecated aliases are accepted and normalised', async () => {
    h = await startResearchHarness();
    const created = await h.call('POST', '/deepresearch/tasks', { input: QUERY, model: 'heavy', strategy: 'Prefer primary sources', code_execution: true });
    expect(created.status).toBe(200);
    const task = await h.client.getTask(textField(created.json, 'deepresearch_id'));
    expect(task).toMatchObject({ query: QUERY, mode: 'heavy', tools: { code_execution: true }, cost: 2.6 });
  });

  test('an invalid create is refused with 400 naming the field path and the rule, and nothing is charged', async () => {
    h = await startResearchHarness();
    const before = h.emulator.accounts.all()[0]!.creditsUsd;
    const bad = await h.call('POST', '/deepresearch/tasks', { query: QUERY, mode: 'turbo', urls: ['not a url'] });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ success: false });
    const error = textField(bad.json, 'error');
    expect(error).toContain('mode');
    expect(error).toContain('urls[0]: must be a URL');
    const missing = await h.call('POST', '/deepresearch/tasks', { mode: 'fast' });
    expect(textField(missing.json, 'error')).toContain('query: is required');
    const unknownField = await h.call('POST', '/deepresearch/tasks', { query: QUERY, colour: 'blue' });
    expect(unknownField.status).toBe(400);
    expect(h.emulator.accounts.all()[0]!.creditsUsd).toBe(before);
    expect(h.emulator.stats.snapshot().tasksCreated).toBe(0);
  });

  test('a create the balance cannot cover is refused with 402 and creates nothing', async () => {
    h = await startResearchHarness({}, { accounts: [{ key: 'key_poor_account', creditsUsd: 0.3 }] });
    const poor = await h.call('POST', '/deepresearch/tasks', { query: QUERY, mode: 'standard' }, 'key_poor_account');
    expect(poor.status).toBe(402);
    expect(poor.json).toMatchObject({ success: false, error: expect.stringMatching(/top up/i) });
    const list = await h.call('GET', '/deepresearch/list', undefined, 'key_poor_account');
    expect(list.json).toEqual([]);
    const cheap = await h.call('POST', '/deepresearch/tasks', { query: QUERY, mode: 'fast' }, 'key_poor_account');
    expect(cheap.status).toBe(200);
    expect(h.emulator.accounts.find('key_poor_account')!.creditsUsd).toBeCloseTo(0.2, 6);
  });

  test('without a free slot a task is queued with a message and starts when a running one finishes', async () => {
    h = await startResearchHarness({ capacity: 1 });
    const first = await h.client.createTask({ query: QUERY, mode: 'fast' });
    const second = await h.client.createTask({ query: 'Second question about solid-state batteries', mode: 'fast' });
    expect(first.status).toBe('running');
    expect(second.status).toBe('queued');
    expect(second.message).toMatch(/queued/);
    expect((await h.client.getTask(second.deepresearch_id)).progress).toBeUndefined();
    await h.advance(minutes(3));
    expect((await h.client.getTask(first.deepresearch_id)).status).toBe('completed');
    expect((await h.client.getTask(second.deepresearch_id)).status).toBe('running');
    await h.advance(minutes(3));
    expect((await h.client.getTask(second.deepresearch_id)).completed_at).toBe('2025-01-01T00:06:00.000Z');
  });

  test('cancelling a running task keeps its partial output and sources; cancelling it again is a 409', async () => {
    h = await startResearchHarness();
    const { deepresearch_id: id } = await h.client.createTask({ query: QUERY, mode: 'standard' });
    await h.advance(minutes(9));
    expect(await h.client.cancelTask(id)).toMatchObject({ success: true, deepresearch_id: id });
    const cancelled = await h.client.getTask(id);
    expect(cancelled.status).toBe('cancelled');
    expect(String(cancelled.output)).toContain('Partial report: the task stopped at step 10 of 15');
    expect(cancelled.sources?.length).toBe(6);
    expect(cancelled.completed_at).toBeUndefined();
    const again = await apiError(h.client.cancelTask(id));
    expect(again.status).toBe(409);
    expect(again.serviceMessage).toBe('Task is cancelled; only queued or running tasks can be cancelled');
    await h.advance(minutes(30));
    expect((await h.client.getTask(id)).status).toBe('cancelled');
  });

  test('a queued task can be cancelled before it starts and shows no output', async () => {
    h = await startResearchHarness({ capacity: 1 });
    await h.client.createTask({ query: QUERY, mode: 'fast' });
    const { deepresearch_id: id } = await h.client.createTask({ query: QUERY, mode: 'fast' });
    await h.client.cancelTask(id);
    const task = await h.client.getTask(id);
    expect(task).toMatchObject({ status: 'cancelled', sources: [] });
    expect(task.output).toBeUndefined();
  });

  test('a completed task cannot be cancelled', async () => {
    h = await startResearchHarness();
    const { deepresearch_id: id } = await h.client.createTask({ query: QUERY, mode: 'fast' });
    await h.advance(minutes(3));
    const error = await apiError(h.client.cancelTask(id));
    expect(error.status).toBe(409);
    expect(error.serviceMessage).toMatch(/Task is completed/);
  });

  test('only a stopped task can be deleted, after which it is 404', async () => {
    h = await startResearchHarness();
    const { deepresearch_id: id } = await h.client.createTask({ query: QUERY, mode: 'fast' });
    const early = await apiError(h.client.deleteTask(id));
    expect(early.status).toBe(409);
    expect(early.serviceMessage).toMatch(/Task is running; only completed, failed or cancelled tasks can be deleted/);
    await h.advance(minutes(3));
    expect(await h.client.deleteTask(id)).toMatchObject({ success: true, deepresearch_id: id });
    const gone = await h.call('GET', `/deepresearch/tasks/${id}/status`);
    expect(gone).toEqual({ status: 404, json: { success: false, error: 'Task not found' } });
    expect((await h.client.listTasks()).map((task) => task.deepresearch_id)).not.toContain(id);
  });

  test('visibility can be set and read back', async () => {
    h = await startResearchHarness();
    const { deepresearch_id: id } = await h.client.createTask({ query: QUERY });
    expect(await h.client.setTaskPublic(id, true)).toMatchObject({ success: true, deepresearch_id: id, public: true });
    expect((await h.client.getTask(id)).public).toBe(true);
    const bad = await h.call('POST', `/deepresearch/tasks/${id}/public`, { public: 'yes' });
    expect(bad.status).toBe(400);
  });

  test("unknown ids and other organisations' tasks are 404 on every task route", async () => {
    h = await startResearchHarness(
      {},
      {
        accounts: [
          { key: 'key_org_one', creditsUsd: 10 },
          { key: 'key_org_two', creditsUsd: 10 },
        ],
      },
    );
    const mine = await h.call('POST', '/deepresearch/tasks', { query: QUERY }, 'key_org_one');
    const id = textField(mine.json, 'deepresearch_id');
    const notFound = { status: 404, json: { success: false, error: 'Task not found' } };
    expect(await h.call('GET', `/deepresearch/tasks/${id}`, undefined, 'key_org_two')).toEqual(notFound);
    for (const [method, path, body] of [
      ['GET', '/deepresearch/tasks/nope/status', undefined],
      ['POST', '/deepresearch/tasks/nope/update', { instruction: 'x' }],
      ['POST', '/deepresearch/tasks/nope/cancel', undefined],
      ['DELETE', '/deepresearch/tasks/nope/delete', undefined],
      ['POST', '/deepresearch/tasks/nope/public', { public: true }],
      ['POST', '/deepresearch/tasks/nope/respond', { interaction_id: 'int_1', response: { approved: true } }],
    ] as const) {
      expect(await h.call(method, path, body, 'key_org_one')).toEqual(notFound);
    }
  });

  test('a key without the inference permission gets 403 on task routes', async () => {
    h = await startResearchHarness({}, { accounts: [{ key: 'key_search_only', creditsUsd: 10, permissions: [] }] });
    const refused = await h.call('POST', '/deepresearch/tasks', { query: QUERY }, 'key_search_only');
    expect(refused.status).toBe(403);
  });

  test('the recent-task list is a bare array, newest first, without metadata, and honours limit', async () => {
    h = await startResearchHarness();
    for (const item of ['one', 'two', 'three']) await h.client.createTask({ query: `${QUERY} ${item}`, metadata: { item } });
    const raw = await h.call('GET', '/deepresearch/list?limit=10');
    expect(Array.isArray(raw.json)).toBe(true);
    expect(raw.json).toEqual([expect.not.objectContaining({ metadata: expect.anything() }), expect.anything(), expect.anything()]);
    const all = await h.client.listTasks({ limit: 10 });
    expect(all.map((task) => task.query)).toEqual(['one', 'two', 'three'].reverse().map((item) => `${QUERY} ${item}`));
    expect(all[0]).toMatchObject({ status: 'running', created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) });
    // The full record still carries the metadata: that is what reconciliation reads.
    expect((await h.client.getTask(all[0]!.deepresearch_id)).metadata).toEqual({ item: 'three' });
    expect((await h.client.listTasks({ limit: 2 })).length).toBe(2);
    const bad = await h.call('GET', '/deepresearch/list?limit=0');
    expect(bad.status).toBe(400);
    expect(textField(bad.json, 'error')).toContain('limit');
  });

  test('a follow-up instruction is accepted while running before the writing phase and shows in messages and report', async () => {
    h = await startResearchHarness();
    const { deepresearch_id: id } = await h.client.createTask({ query: QUERY, mode: 'standard' });
    await h.advance(minutes(4));
    expect(await h.client.updateTask(id, 'Compare lithium iron phosphate with NMC chemistries')).toMatchObject({ success: true, deepresearch_id: id });
    const running = await h.client.getTask(id);
    expect(JSON.stringify(running.messages)).toContain('Compare lithium iron phosphate with NMC chemistries');
    await h.advance(minutes(11));
    const done = await h.client.getTask(id);
    expect(String(done.output)).toContain('## Follow-up instructions');
    expect(String(done.output)).toContain('"Compare lithium iron phosphate with NMC chemistries" (received at step 5)');
  });

  test('an instruction in the writing phase, or to a task that is not running, is refused with 409', async () => {
    h = await startResearchHarness({ capacity: 1 });
    const { deepresearch_id: id } = await h.client.createTask({ query: QUERY, mode: 'standard' });
    const queued = await h.client.createTask({ query: QUERY, mode: 'standard' });
    const notRunning = await apiError(h.client.updateTask(queued.deepresearch_id, 'Add pricing'));
    expect(notRunning.status).toBe(409);
    expect(notRunning.serviceMessage).toBe('Task is queued; follow-up instructions are accepted only while it is running');
    await h.advance(minutes(12.5));
    const writing = await apiError(h.client.updateTask(id, 'Add pricing'));
    expect(writing.status).toBe(409);
    expect(writing.serviceMessage).toMatch(/writing phase \(step 13 of 15; writing starts at step 13\)/);
    const empty = await h.call('POST', `/deepresearch/tasks/${id}/update`, { instruction: '  ' });
    expect(empty.status).toBe(400);
  });

  test('with failureRate 1 every task fails part-way with an error and partial output', async () => {
    h = await startResearchHarness({ failureRate: 1 });
    const { deepresearch_id: id } = await h.client.createTask({ query: QUERY, mode: 'fast' });
    await h.advance(minutes(3));
    const failed = await h.client.getTask(id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/\w+/);
    expect(String(failed.output)).toContain('Partial report');
    expect(Array.isArray(failed.sources)).toBe(true);
    expect(failed.completed_at).toBeUndefined();
  });

  test('a seeded failure rate fails about that share of tasks', async () => {
    h = await startResearchHarness({ failureRate: 0.3 });
    const ids = [];
    for (let index = 0; index < 40; index++) ids.push((await h.client.createTask({ query: `${QUERY} ${index}`, mode: 'fast' })).deepresearch_id);
    await h.advance(minutes(3));
    const statuses = await Promise.all(ids.map(async (id) => (await h.client.getTask(id)).status));
    const failed = statuses.filter((status) => status === 'failed').length;
    expect(failed).toBeGreaterThan(4);
    expect(failed).toBeLessThan(24);
    expect(failed + statuses.filter((status) => status === 'completed').length).toBe(40);
  });
});
