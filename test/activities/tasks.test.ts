import { CancelledFailure } from '@temporalio/common';
import { FailureType } from '../../src/domain/failures';
import { webhookRouteToken } from '../../src/api';
import { API_KEY, INTAKE, INTAKE_KEY, WORKFLOW_ID, createdTask, jsonOf, networkError, useTestbed, taskBody, type Setup } from './helpers';

const CREATE = { path: '/v1/deepresearch/tasks', method: 'POST' } as const;
const LIST = { path: '/v1/deepresearch/list?limit=100', method: 'GET' } as const;
/** The list asked for without `limit`: every task of the key. */
const FULL_LIST = { path: '/v1/deepresearch/list', method: 'GET' } as const;
const SECRET = 'a'.repeat(64);
const status = (id: string) => ({ path: `/v1/deepresearch/tasks/${id}/status`, method: 'GET' }) as const;
/** A `GET /deepresearch/list` item as the JS client types it: no metadata, `created_at` in milliseconds. */
const listItem = (overrides: Record<string, unknown> = {}) => ({
  deepresearch_id: 'dr_1',
  query: 'EV battery supply chains',
  status: 'running',
  created_at: 1_735_689_600_000,
  ...overrides,
});
const input = { request: { query: 'EV battery supply chains', mode: 'fast' as const, metadata: { team: 'ops' } }, requestKey: 'run-1:item-7' };

const testbed = useTestbed();
let t: Setup;
beforeEach(() => {
  t = testbed();
});

describe('createResearchTask', () => {
  test('tags the task with the request key, keeps the caller metadata and asks for the webhook', async () => {
    let sent: Record<string, unknown> = {};
    t.service.intercept(CREATE).reply(200, (options) => {
      sent = jsonOf(options.body);
      return createdTask({ webhook_secret: SECRET });
    });
    const created = await t.env().call(t.activities.createResearchTask, input);
    expect(sent.metadata).toEqual({ team: 'ops', rp_request_key: 'run-1:item-7' });
    expect(sent.webhook_url).toBe(`${INTAKE}/webhooks/research/${encodeURIComponent(WORKFLOW_ID)}/${webhookRouteToken(INTAKE_KEY, WORKFLOW_ID)}`);
    expect(created).toEqual({
      deepresearchId: 'dr_1',
      status: 'running',
      mode: 'standard',
      createdAt: '2025-01-01T00:00:00Z',
      webhookConfigured: true,
      adopted: false,
    });
  });

  test('keeps the webhook secret in the secret store, never in the result', async () => {
    t.service.intercept(CREATE).reply(200, createdTask({ webhook_secret: SECRET }));
    const created = await t.env().call(t.activities.createResearchTask, input);
    expect(JSON.stringify(created)).not.toContain(SECRET);
    expect(await t.secrets.get('dr_1')).toBe(SECRET);
  });

  test.each([
    ['a 500', (s: Setup) => s.service.intercept(CREATE).reply(500, { success: false, error: 'internal server error' })],
    ['a 502', (s: Setup) => s.service.intercept(CREATE).reply(502, 'bad gateway')],
    ['a 504', (s: Setup) => s.service.intercept(CREATE).reply(504, 'gateway timeout')],
    ['a reset connection', (s: Setup) => s.service.intercept(CREATE).replyWithError(networkError('ECONNRESET', 'socket hang up'))],
    ['a timeout', (s: Setup) => s.service.intercept(CREATE).reply(200, createdTask()).delay(1_000)],
    ['an unreadable success', (s: Setup) => s.service.intercept(CREATE).reply(200, '<html>ok</html>')],
  ])('%s after sending is CreateOutcomeUnknown and not retryable', async (_name, arrange) => {
    arrange(t);
    const failure = t.env().call(t.activities.createResearchTask, input);
    await expect(failure).rejects.toMatchObject({ type: FailureType.CreateOutcomeUnknown, nonRetryable: true });
    await expect(failure).rejects.toHaveProperty('message', expect.stringContaining('run-1:item-7'));
  });

  test.each([
    ['503', 503, FailureType.ServiceUnavailable],
    ['408', 408, FailureType.ServiceUnavailable],
    ['429', 429, FailureType.RateLimited],
  ])('a %s means nothing was created: retryable', async (_name, status, type) => {
    t.service.intercept(CREATE).reply(status, { success: false, error: 'busy' });
    await expect(t.env().call(t.activities.createResearchTask, input)).rejects.toMatchObject({ type, nonRetryable: false });
  });

  test('a 429 retries after exactly the Retry-After delay', async () => {
    t.service.intercept(CREATE).reply(429, { success: false, error: 'rate limited' }, { headers: { 'retry-after': '12' } });
    await expect(t.env().call(t.activities.createResearchTask, input)).rejects.toMatchObject({ type: FailureType.RateLimited, nextRetryDelay: 12_000 });
  });

  test.each([['ECONNREFUSED'], ['ENOTFOUND'], ['UND_ERR_CONNECT_TIMEOUT']])('%s before sending is retryable ServiceUnavailable', async (code) => {
    t.service.intercept(CREATE).replyWithError(networkError(code));
    await expect(t.env().call(t.activities.createResearchTask, input)).rejects.toMatchObject({ type: FailureType.ServiceUnavailable, nonRetryable: false });
  });

  test.each([
    [400, FailureType.InvalidRequest],
    [401, FailureType.Unauthorized],
    [402, FailureType.CreditsExhausted],
    [403, FailureType.Forbidden],
  ])('a %i is %s and not retryable', async (status, type) => {
    t.service.intercept(CREATE).reply(status, { success: false, error: 'no' });
    await expect(t.env().call(t.activities.createResearchTask, input)).rejects.toMatchObject({ type, nonRetryable: true });
  });

  test('failures never show the API key', async () => {
    t.service.intercept(CREATE).reply(401, { success: false, error: `invalid API key ${API_KEY}` });
    const error: unknown = await t
      .env()
      .call(t.activities.createResearchTask, input)
      .catch((caught: unknown) => caught);
    expect(JSON.stringify(error) + String(error)).not.toContain(API_KEY);
  });

  test('attempt 2 adopts the task whose full record carries the request key, and sends no second POST', async () => {
    await t.secrets.put('dr_1', SECRET);
    t.service
      .intercept(LIST)
      .reply(200, [
        listItem({ deepresearch_id: 'dr_other', query: 'Something else', created_at: 1_735_689_605_000 }),
        listItem({ deepresearch_id: 'dr_1', status: 'queued' }),
      ]);
    t.service.intercept(status('dr_1')).reply(200, taskBody({ status: 'queued', mode: 'fast', metadata: { team: 'ops', rp_request_key: 'run-1:item-7' } }));
    const created = await t.env({ attempt: 2 }).call(t.activities.createResearchTask, input);
    expect(created).toEqual({
      deepresearchId: 'dr_1',
      status: 'queued',
      mode: 'fast',
      createdAt: '2025-01-01T00:00:00Z',
      webhookConfigured: true,
      adopted: true,
    });
  });

  test('attempt 2 creates when the whole list has no task with the query', async () => {
    t.service.intercept(LIST).reply(200, [listItem({ deepresearch_id: 'dr_0', query: 'Another question' })]);
    t.service.intercept(CREATE).reply(200, createdTask());
    const created = await t.env({ attempt: 2 }).call(t.activities.createResearchTask, input);
    expect(created).toMatchObject({ deepresearchId: 'dr_1', adopted: false, webhookConfigured: false });
  });

  test('attempt 2 does not create when a task with the query hides whose it is: CreateOutcomeUnknown', async () => {
    t.service.intercept(LIST).reply(200, [listItem()]);
    t.service.intercept(status('dr_1')).reply(200, taskBody({ query: input.request.query }));
    await expect(t.env({ attempt: 2 }).call(t.activities.createResearchTask, input)).rejects.toMatchObject({
      type: FailureType.CreateOutcomeUnknown,
      nonRetryable: true,
    });
  });

  test('a cancelled activity abandons the call and reports cancellation', async () => {
    t.service.intercept(CREATE).reply(200, createdTask()).delay(1_500);
    const env = t.env();
    const running = env.call(t.activities.createResearchTask, input);
    setTimeout(() => env.cancel(), 20);
    await expect(running).rejects.toBeInstanceOf(CancelledFailure);
  });
});

describe('findResearchTask', () => {
  const find = { requestKey: 'run-1:item-7', query: input.request.query, createdAfter: '2025-01-01T00:00:00Z' };

  test('returns null when every candidate belongs to another request and the list holds all tasks', async () => {
    t.service.intercept(LIST).reply(200, [listItem()]);
    t.service.intercept(status('dr_1')).reply(200, taskBody({ metadata: { rp_request_key: 'run-1:item-8' } }));
    expect(await t.env().call(t.activities.findResearchTask, find)).toBeNull();
  });

  test('ignores tasks with another query or created before the send (beyond clock skew) without reading them', async () => {
    t.service
      .intercept(LIST)
      .reply(200, [
        listItem({ deepresearch_id: 'dr_q', query: 'Another question' }),
        listItem({ deepresearch_id: 'dr_old', created_at: '2024-12-31T23:00:00Z' }),
      ]);
    expect(await t.env().call(t.activities.findResearchTask, find)).toBeNull();
  });

  test('adopts the oldest of two tasks carrying the key, with mode and creation time from its full record', async () => {
    t.service.intercept(LIST).reply(200, [listItem({ deepresearch_id: 'dr_new', created_at: 1_735_689_660_000 }), listItem({ deepresearch_id: 'dr_old' })]);
    t.service.intercept(status('dr_new')).reply(200, taskBody({ deepresearch_id: 'dr_new', metadata: { rp_request_key: 'run-1:item-7' } }));
    t.service
      .intercept(status('dr_old'))
      .reply(200, taskBody({ deepresearch_id: 'dr_old', status: 'completed', mode: 'heavy', metadata: { rp_request_key: 'run-1:item-7' } }));
    const found = await t.env().call(t.activities.findResearchTask, find);
    expect(found).toEqual({
      deepresearchId: 'dr_old',
      status: 'completed',
      mode: 'heavy',
      createdAt: '2025-01-01T00:00:00Z',
      webhookConfigured: false,
      adopted: true,
    });
  });

  test('is CreateOutcomeUnknown when a candidate shows no metadata', async () => {
    t.service.intercept(LIST).reply(200, [listItem()]);
    t.service.intercept(status('dr_1')).reply(200, taskBody({ query: input.request.query }));
    const failure = t.env().call(t.activities.findResearchTask, find);
    await expect(failure).rejects.toMatchObject({ type: FailureType.CreateOutcomeUnknown, nonRetryable: true });
    await expect(failure).rejects.toHaveProperty('message', expect.stringContaining('dr_1'));
  });

  const recentTasks = (count: number, offset = 0) =>
    Array.from({ length: count }, (_, index) =>
      listItem({ deepresearch_id: `dr_${index + offset}`, query: `Question ${index + offset}`, created_at: '2025-01-01T00:05:00Z' }),
    );

  test('is CreateOutcomeUnknown when the list asked for in full comes back cut to a page', async () => {
    const page = recentTasks(100);
    t.service.intercept(LIST).reply(200, page);
    // A service that cuts the full list to a page: it cannot show that nothing older was made since the send.
    t.service.intercept(FULL_LIST).reply(200, page);
    await expect(t.env().call(t.activities.findResearchTask, find)).rejects.toMatchObject({
      type: FailureType.CreateOutcomeUnknown,
      message: expect.stringContaining('not evidently the whole list'),
    });
  });

  test('reads the whole list when a full page does not reach back: longer than a page and holding the page, it settles that nothing was created', async () => {
    t.service.intercept(LIST).reply(200, recentTasks(100));
    t.service.intercept(FULL_LIST).reply(200, recentTasks(250));
    expect(await t.env().call(t.activities.findResearchTask, find)).toBeNull();
  });

  test('a whole list that misses a task of the page is not taken for the whole list', async () => {
    t.service.intercept(LIST).reply(200, recentTasks(100));
    t.service.intercept(FULL_LIST).reply(200, recentTasks(250, 1));
    await expect(t.env().call(t.activities.findResearchTask, find)).rejects.toMatchObject({ type: FailureType.CreateOutcomeUnknown });
  });

  test('adopts a task found only in the whole list', async () => {
    t.service.intercept(LIST).reply(200, recentTasks(100));
    t.service.intercept(FULL_LIST).reply(200, [...recentTasks(100), listItem({ deepresearch_id: 'dr_ours' }), ...recentTasks(50, 100)]);
    t.service.intercept(status('dr_ours')).reply(200, taskBody({ deepresearch_id: 'dr_ours', metadata: { rp_request_key: 'run-1:item-7' } }));
    expect(await t.env().call(t.activities.findResearchTask, find)).toMatchObject({ deepresearchId: 'dr_ours', adopted: true });
  });

  test('is CreateOutcomeUnknown when the whole list cannot be read', async () => {
    t.service.intercept(LIST).reply(200, recentTasks(100));
    t.service.intercept(FULL_LIST).reply(200, '<html>too many tasks</html>');
    await expect(t.env().call(t.activities.findResearchTask, find)).rejects.toMatchObject({
      type: FailureType.CreateOutcomeUnknown,
      message: expect.stringContaining('could not be read'),
    });
  });

  test('a full page that reaches back before the send time settles that nothing was created', async () => {
    const page = Array.from({ length: 100 }, (_, index) =>
      listItem({ deepresearch_id: `dr_${index}`, query: `Question ${index}`, created_at: index < 99 ? '2025-01-01T00:05:00Z' : '2024-12-01T00:00:00Z' }),
    );
    t.service.intercept(LIST).reply(200, page);
    expect(await t.env().call(t.activities.findResearchTask, find)).toBeNull();
  });
});

describe('getResearchTask', () => {
  test('returns status fields only: no output, sources or messages', async () => {
    t.service.intercept({ path: '/v1/deepresearch/tasks/dr_1/status', method: 'GET' }).reply(
      200,
      taskBody({
        status: 'completed',
        cost: 0.5,
        completed_at: '2025-01-01T00:10:00Z',
        progress: { current_step: 15, total_steps: 15 },
        output: '# Report '.repeat(1000),
        sources: [{ title: 's', url: 'https://s.example' }],
        messages: [{ role: 'assistant' }],
      }),
    );
    const snapshot = await t.env().call(t.activities.getResearchTask, { deepresearchId: 'dr_1' });
    expect(snapshot).toEqual({
      deepresearchId: 'dr_1',
      status: 'completed',
      mode: 'standard',
      cost: 0.5,
      completedAt: '2025-01-01T00:10:00Z',
      progress: { currentStep: 15, totalSteps: 15 },
    });
  });

  test('includes the checkpoint of a task awaiting input', async () => {
    const interaction = { interaction_id: 'int_1', type: 'plan_review', data: { plan: 'p' }, created_at: 1, timeout_ms: 300_000 };
    t.service.intercept({ path: '/v1/deepresearch/tasks/dr_1/status', method: 'GET' }).reply(200, taskBody({ status: 'awaiting_input', interaction }));
    expect(await t.env().call(t.activities.getResearchTask, { deepresearchId: 'dr_1' })).toMatchObject({ status: 'awaiting_input', interaction });
  });

  test('an unknown task is NotFound', async () => {
    t.service.intercept({ path: '/v1/deepresearch/tasks/dr_x/status', method: 'GET' }).reply(404, { success: false, error: 'task not found' });
    await expect(t.env().call(t.activities.getResearchTask, { deepresearchId: 'dr_x' })).rejects.toMatchObject({
      type: FailureType.NotFound,
      nonRetryable: true,
    });
  });
});
