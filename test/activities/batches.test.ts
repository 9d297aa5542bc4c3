import { bySize } from '../../src/activities/batches';
import { FailureType } from '../../src/domain/failures';
import { webhookRouteToken } from '../../src/api';
import { INTAKE, INTAKE_KEY, WORKFLOW_ID, jsonOf, useTestbed, type Setup } from './helpers';

const BATCHES = { path: '/v1/deepresearch/batches', method: 'GET' } as const;
const CREATE = { path: '/v1/deepresearch/batches', method: 'POST' } as const;
const ADD = { path: '/v1/deepresearch/batches/batch_1/tasks', method: 'POST' } as const;
const GET = { path: '/v1/deepresearch/batches/batch_1', method: 'GET' } as const;
const SECRET = 'b'.repeat(64);
const counts = (total: number) => ({ total, queued: total, running: 0, completed: 0, failed: 0, cancelled: 0 });
const batch = (overrides: Record<string, unknown> = {}) => ({ batch_id: 'batch_1', status: 'open', counts: counts(0), ...overrides });
const listTasks = (query: Record<string, string>) => ({ path: '/v1/deepresearch/batches/batch_1/tasks', method: 'GET', query });
const page = (ids: string[], lastKey: string | null, hasMore: boolean) => ({
  tasks: ids.map((id) => ({ deepresearch_id: `dr_${id}`, task_id: id, query: `q ${id}`, status: 'queued', created_at: '2025-01-01T00:00:00Z' })),
  pagination: { count: ids.length, last_key: lastKey, has_more: hasMore },
});
const tasks = (ids: string[]) => ids.map((id) => ({ id, query: `question ${id}` }));

const testbed = useTestbed();
let t: Setup;
beforeEach(() => {
  t = testbed();
});

describe('createResearchBatch', () => {
  const input = { request: { name: 'weekly scan', mode: 'fast' as const, metadata: { owner: 'ops' } }, requestKey: 'batch-run-1' };

  test('tags the batch, asks for the webhook and keeps the secret out of the result', async () => {
    let sent: Record<string, unknown> = {};
    t.service.intercept(CREATE).reply(200, (options) => {
      sent = jsonOf(options.body);
      return batch({ webhook_secret: SECRET });
    });
    const created = await t.env().call(t.activities.createResearchBatch, input);
    expect(sent).toMatchObject({
      metadata: { owner: 'ops', rp_request_key: 'batch-run-1' },
      webhook_url: `${INTAKE}/webhooks/research/${encodeURIComponent(WORKFLOW_ID)}/${webhookRouteToken(INTAKE_KEY, WORKFLOW_ID)}`,
    });
    expect(created).toEqual({ batchId: 'batch_1', status: 'open', webhookConfigured: true, adopted: false });
    expect(JSON.stringify(created)).not.toContain(SECRET);
    expect(await t.secrets.get('batch_1')).toBe(SECRET);
  });

  test('attempt 2 adopts the batch an earlier attempt created', async () => {
    t.service.intercept(BATCHES).reply(200, { batches: [batch({ metadata: { rp_request_key: 'batch-run-1' }, status: 'processing' })] });
    expect(await t.env({ attempt: 2 }).call(t.activities.createResearchBatch, input)).toEqual({
      batchId: 'batch_1',
      status: 'processing',
      webhookConfigured: false,
      adopted: true,
    });
  });

  test('a 500 on create is retryable: a retry adopts instead of duplicating', async () => {
    t.service.intercept(CREATE).reply(500, 'oops');
    await expect(t.env().call(t.activities.createResearchBatch, input)).rejects.toMatchObject({ type: FailureType.ServiceUnavailable, nonRetryable: false });
  });
});

describe('addResearchBatchTasks', () => {
  test('adds the tasks on a first attempt without listing', async () => {
    let sent: Record<string, unknown> = {};
    t.service.intercept(ADD).reply(200, (options) => {
      sent = jsonOf(options.body);
      return { batch_id: 'batch_1', added: 2, tasks: [], counts: counts(2) };
    });
    expect(await t.env().call(t.activities.addResearchBatchTasks, { batchId: 'batch_1', tasks: tasks(['a', 'b']) })).toEqual({
      added: 2,
      skipped: 0,
      counts: counts(2),
    });
    expect(sent).toEqual({ tasks: tasks(['a', 'b']) });
  });

  test('more than 100 tasks is InvalidInput, before any call', async () => {
    const many = tasks(Array.from({ length: 101 }, (_, index) => `t${index}`));
    await expect(t.env().call(t.activities.addResearchBatchTasks, { batchId: 'batch_1', tasks: many })).rejects.toMatchObject({
      type: FailureType.InvalidInput,
      nonRetryable: true,
    });
  });

  test('a retry reads every page of existing ids and adds only the missing tasks', async () => {
    t.service.intercept(listTasks({ limit: '100' })).reply(200, page(['a'], 'k1', true));
    t.service.intercept(listTasks({ limit: '100', last_key: 'k1' })).reply(200, page(['b'], null, false));
    let sent: Record<string, unknown> = {};
    t.service.intercept(ADD).reply(200, (options) => {
      sent = jsonOf(options.body);
      return { batch_id: 'batch_1', added: 1, tasks: [], counts: counts(3) };
    });
    const result = await t.env({ attempt: 2 }).call(t.activities.addResearchBatchTasks, { batchId: 'batch_1', tasks: tasks(['a', 'b', 'c']) });
    expect(sent).toEqual({ tasks: tasks(['c']) });
    expect(result).toEqual({ added: 1, skipped: 2, counts: counts(3) });
  });

  test('a first attempt asked to reconcile (after a top-up) also adds only the missing tasks', async () => {
    t.service.intercept(listTasks({ limit: '100' })).reply(200, page(['a'], null, false));
    let sent: Record<string, unknown> = {};
    t.service.intercept(ADD).reply(200, (options) => {
      sent = jsonOf(options.body);
      return { batch_id: 'batch_1', added: 1, tasks: [], counts: counts(2) };
    });
    const result = await t.env().call(t.activities.addResearchBatchTasks, { batchId: 'batch_1', tasks: tasks(['a', 'b']), reconcile: true });
    expect(sent).toEqual({ tasks: tasks(['b']) });
    expect(result).toEqual({ added: 1, skipped: 1, counts: counts(2) });
  });

  test('a retry whose tasks are all there adds nothing and reports the counts', async () => {
    t.service.intercept(listTasks({ limit: '100' })).reply(200, page(['a', 'b'], null, false));
    t.service.intercept(GET).reply(200, { batch: batch({ counts: counts(2) }) });
    expect(await t.env({ attempt: 3 }).call(t.activities.addResearchBatchTasks, { batchId: 'batch_1', tasks: tasks(['a', 'b']) })).toEqual({
      added: 0,
      skipped: 2,
      counts: counts(2),
    });
  });

  test('credits running out is CreditsExhausted', async () => {
    t.service.intercept(ADD).reply(402, { success: false, error: 'Insufficient credits. Please top up your account.' });
    await expect(t.env().call(t.activities.addResearchBatchTasks, { batchId: 'batch_1', tasks: tasks(['a']) })).rejects.toMatchObject({
      type: FailureType.CreditsExhausted,
      nonRetryable: true,
    });
  });
});

describe('getResearchBatch and cancelResearchBatch', () => {
  test('the snapshot has status, counts and cost', async () => {
    t.service.intercept(GET).reply(200, { success: true, batch: batch({ status: 'processing', counts: counts(4), cost: 0.4, name: 'n' }) });
    expect(await t.env().call(t.activities.getResearchBatch, { batchId: 'batch_1' })).toEqual({
      batchId: 'batch_1',
      status: 'processing',
      counts: counts(4),
      cost: 0.4,
    });
  });

  test('cancel reports how many tasks it cancelled', async () => {
    t.service
      .intercept({ path: '/v1/deepresearch/batches/batch_1/cancel', method: 'POST' })
      .reply(200, { batch_id: 'batch_1', status: 'cancelled', cancelled_count: 3 });
    expect(await t.env().call(t.activities.cancelResearchBatch, { batchId: 'batch_1' })).toEqual({ cancelled: true, status: 'cancelled', cancelledCount: 3 });
  });

  test('cancelling a batch that already ended is not an error', async () => {
    t.service.intercept({ path: '/v1/deepresearch/batches/batch_1/cancel', method: 'POST' }).reply(409, { success: false, error: 'batch already completed' });
    t.service.intercept(GET).reply(200, { batch: batch({ status: 'completed' }) });
    expect(await t.env().call(t.activities.cancelResearchBatch, { batchId: 'batch_1' })).toEqual({ cancelled: false, status: 'completed', cancelledCount: 0 });
  });
});

describe('collectResearchBatchPage', () => {
  test('stores every ended task of the page and reports the others by status', async () => {
    t.service.intercept(listTasks({ limit: '2', include_output: 'true', last_key: 'k0' })).reply(200, {
      tasks: [
        {
          deepresearch_id: 'dr_a',
          task_id: 'a/1',
          query: 'A',
          status: 'completed',
          created_at: '2025-01-01T00:00:00Z',
          output: '# A',
          sources: [{ url: 'https://a.example' }],
          cost: 0.1,
        },
        {
          deepresearch_id: 'dr_b',
          task_id: 'b',
          query: 'B',
          status: 'failed',
          created_at: '2025-01-01T00:00:00Z',
          error: 'tool budget',
          output: { partial: true },
        },
        { deepresearch_id: 'dr_c', query: 'C', status: 'running', created_at: '2025-01-01T00:00:00Z' },
      ],
      pagination: { count: 3, last_key: 'k1', has_more: true },
    });
    const collected = await t.env().call(t.activities.collectResearchBatchPage, { batchId: 'batch_1', keyPrefix: 'batches/b1', lastKey: 'k0', pageSize: 2 });
    expect(collected.hasMore).toBe(true);
    expect(collected.nextKey).toBe('k1');
    const [a, b, c] = collected.tasks;
    expect(a).toMatchObject({ batchTaskId: 'a/1', deepresearchId: 'dr_a', status: 'completed', sourceCount: 1, cost: 0.1 });
    expect(a?.report?.key).toMatch(/^batches\/b1\/1-[0-9a-f]{8}\/report\.md$/);
    expect(a?.sources?.key).toMatch(/sources\.json$/);
    expect(b).toMatchObject({ status: 'failed', error: 'tool budget', report: expect.objectContaining({ key: 'batches/b1/b/report.json' }) });
    expect(c).toEqual({ deepresearchId: 'dr_c', status: 'running', sourceCount: 0 });
    expect(Buffer.from(await t.store.get(a!.report!.key)).toString()).toBe('# A');
  });
});

describe('bySize', () => {
  it('keeps order and puts as many tasks in a call as stay under the limit', () => {
    const tasks = Array.from({ length: 7 }, (_, index) => ({ id: `t${index}`, query: 'x'.repeat(300) }));
    const groups = bySize(tasks, 1_000);
    expect(groups.flat()).toEqual(tasks);
    expect(groups.map((group) => group.length)).toEqual([3, 3, 1]);
    expect(groups.every((group) => Buffer.byteLength(JSON.stringify(group)) < 1_000)).toBe(true);
  });

  it('sends a task larger than the limit alone rather than dropping it', () => {
    expect(bySize([{ q: 'x'.repeat(50) }, { q: 'y' }], 20).map((group) => group.length)).toEqual([1, 1]);
  });
});
