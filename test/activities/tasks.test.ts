import { CancelledFailure } from '@temporalio/common';
import { FailureType } from '../../src/workflows/failures';
import { API_KEY, INTAKE, WORKFLOW_ID, createdTask, jsonOf, networkError, useTestbed, taskBody, type Setup } from './helpers';

const CREATE = { path: '/v1/deepresearch/tasks', method: 'POST' } as const;
const LIST = { path: '/v1/deepresearch/list?limit=100', method: 'GET' } as const;
const SECRET = 'a'.repeat(64);
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
    expect(sent.webhook_url).toBe(`${INTAKE}/webhooks/research/${encodeURIComponent(WORKFLOW_ID)}`);
    expect(created).toEqual({ deepresearchId: 'dr_1', status: 'running', mode: 'standard', createdAt: '2025-01-01T00:00:00Z', webhookConfigured: true, adopted: false });
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
    const error: unknown = await t.env().call(t.activities.createResearchTask, input).catch((caught: unknown) => caught);
    expect(JSON.stringify(error) + String(error)).not.toContain(API_KEY);
  });

  test('attempt 2 adopts the task found by its request key and sends no second POST', async () => {
    await t.secrets.put('dr_1', SECRET);
    t.service.intercept(LIST).reply(200, { tasks: [
      { deepresearch_id: 'dr_other', status: 'running', mode: 'fast', created_at: '2025-01-01T00:00:05Z', metadata: { rp_request_key: 'other' } },
      { deepresearch_id: 'dr_1', status: 'queued', mode: 'fast', created_at: '2025-01-01T00:00:00Z', metadata: { rp_request_key: 'run-1:item-7' } },
    ] });
    const created = await t.env({ attempt: 2 }).call(t.activities.createResearchTask, input);
    expect(created).toEqual({ deepresearchId: 'dr_1', status: 'queued', mode: 'fast', createdAt: '2025-01-01T00:00:00Z', webhookConfigured: true, adopted: true });
  });

  test('attempt 2 creates when the list has no task with the key', async () => {
    t.service.intercept(LIST).reply(200, { tasks: [] });
    t.service.intercept(CREATE).reply(200, createdTask());
    const created = await t.env({ attempt: 2 }).call(t.activities.createResearchTask, input);
    expect(created).toMatchObject({ deepresearchId: 'dr_1', adopted: false, webhookConfigured: false });
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
  test('returns null when no task carries the key', async () => {
    t.service.intercept(LIST).reply(200, { tasks: [{ deepresearch_id: 'dr_9', status: 'running', metadata: {} }] });
    expect(await t.env().call(t.activities.findResearchTask, { requestKey: 'run-1:item-7' })).toBeNull();
  });

  test('fills mode and creation time from the task when the list omits them, and adopts the oldest duplicate', async () => {
    t.service.intercept(LIST).reply(200, { tasks: [
      { deepresearch_id: 'dr_new', status: 'running', metadata: { rp_request_key: 'k' } },
      { deepresearch_id: 'dr_old', status: 'completed', metadata: { rp_request_key: 'k' } },
    ] });
    t.service.intercept({ path: '/v1/deepresearch/tasks/dr_old/status', method: 'GET' }).reply(200, taskBody({ deepresearch_id: 'dr_old', status: 'completed', mode: 'heavy' }));
    const found = await t.env().call(t.activities.findResearchTask, { requestKey: 'k' });
    expect(found).toEqual({ deepresearchId: 'dr_old', status: 'completed', mode: 'heavy', createdAt: '2025-01-01T00:00:00Z', webhookConfigured: false, adopted: true });
  });
});

describe('getResearchTask', () => {
  test('returns status fields only: no output, sources or messages', async () => {
    t.service.intercept({ path: '/v1/deepresearch/tasks/dr_1/status', method: 'GET' }).reply(200, taskBody({
      status: 'completed', cost: 0.5, completed_at: '2025-01-01T00:10:00Z', progress: { current_step: 15, total_steps: 15 },
      output: '# Report '.repeat(1000), sources: [{ title: 's', url: 'https://s.example' }], messages: [{ role: 'assistant' }],
    }));
    const snapshot = await t.env().call(t.activities.getResearchTask, { deepresearchId: 'dr_1' });
    expect(snapshot).toEqual({
      deepresearchId: 'dr_1', status: 'completed', mode: 'standard', cost: 0.5, completedAt: '2025-01-01T00:10:00Z', progress: { currentStep: 15, totalSteps: 15 },
    });
  });

  test('includes the checkpoint of a task awaiting input', async () => {
    const interaction = { interaction_id: 'int_1', type: 'plan_review', data: { plan: 'p' }, created_at: 1, timeout_ms: 300_000 };
    t.service.intercept({ path: '/v1/deepresearch/tasks/dr_1/status', method: 'GET' }).reply(200, taskBody({ status: 'awaiting_input', interaction }));
    expect(await t.env().call(t.activities.getResearchTask, { deepresearchId: 'dr_1' })).toMatchObject({ status: 'awaiting_input', interaction });
  });

  test('an unknown task is NotFound', async () => {
    t.service.intercept({ path: '/v1/deepresearch/tasks/dr_x/status', method: 'GET' }).reply(404, { success: false, error: 'task not found' });
    await expect(t.env().call(t.activities.getResearchTask, { deepresearchId: 'dr_x' })).rejects.toMatchObject({ type: FailureType.NotFound, nonRetryable: true });
  });
});
