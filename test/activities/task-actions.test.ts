import { FailureType } from '../../src/domain/failures';
import { jsonOf, useTestbed, taskBody, type Setup } from './helpers';

const STATUS = { path: '/v1/deepresearch/tasks/dr_1/status', method: 'GET' } as const;
const UPDATE = { path: '/v1/deepresearch/tasks/dr_1/update', method: 'POST' } as const;
const RESPOND = { path: '/v1/deepresearch/tasks/dr_1/respond', method: 'POST' } as const;
const CANCEL = { path: '/v1/deepresearch/tasks/dr_1/cancel', method: 'POST' } as const;
const DELETE = { path: '/v1/deepresearch/tasks/dr_1/delete', method: 'DELETE' } as const;
const ack = (message = 'ok') => ({ success: true, message, deepresearch_id: 'dr_1' });

const testbed = useTestbed();
let t: Setup;
beforeEach(() => {
  t = testbed();
});

describe('addResearchInstruction', () => {
  test('an accepted instruction is { accepted: true }', async () => {
    let sent: Record<string, unknown> = {};
    t.service.intercept(UPDATE).reply(200, (options) => {
      sent = jsonOf(options.body);
      return ack('instruction added');
    });
    const result = await t.env().call(t.activities.addResearchInstruction, { deepresearchId: 'dr_1', instruction: 'Focus on Europe' });
    expect(sent).toEqual({ instruction: 'Focus on Europe' });
    expect(result).toEqual({ accepted: true, message: 'instruction added' });
  });

  test.each([[400], [409]])('a late instruction refused with %i is Refused with the service reason', async (status) => {
    t.service.intercept(UPDATE).reply(status, { success: false, error: 'the writing phase has begun' });
    const failure = t.env().call(t.activities.addResearchInstruction, { deepresearchId: 'dr_1', instruction: 'more' });
    await expect(failure).rejects.toMatchObject({
      type: FailureType.Refused,
      nonRetryable: true,
      message: expect.stringContaining('the writing phase has begun'),
    });
  });

  test('success: false in the answer is Refused too', async () => {
    t.service.intercept(UPDATE).reply(200, { success: false, message: 'too late', deepresearch_id: 'dr_1' });
    await expect(t.env().call(t.activities.addResearchInstruction, { deepresearchId: 'dr_1', instruction: 'more' })).rejects.toMatchObject({
      type: FailureType.Refused,
    });
  });
});

describe('answerResearchCheckpoint', () => {
  test('sends the interaction id and response', async () => {
    let sent: Record<string, unknown> = {};
    t.service.intercept(RESPOND).reply(200, (options) => {
      sent = jsonOf(options.body);
      return { success: true, status: 'queued' };
    });
    const result = await t.env().call(t.activities.answerResearchCheckpoint, { deepresearchId: 'dr_1', interactionId: 'int_1', response: { approved: true } });
    expect(sent).toEqual({ interaction_id: 'int_1', response: { approved: true } });
    expect(result).toEqual({ accepted: true, status: 'queued' });
  });

  test('an answer of the wrong shape for the checkpoint is InvalidRequest, for the operator to fix', async () => {
    t.service.intercept(RESPOND).reply(400, { success: false, error: 'plan_review expects {approved}' });
    const failure = t
      .env()
      .call(t.activities.answerResearchCheckpoint, { deepresearchId: 'dr_1', interactionId: 'int_1', response: { answers: [{ question: 'q', answer: 'a' }] } });
    await expect(failure).rejects.toMatchObject({ type: FailureType.InvalidRequest, nonRetryable: true });
  });

  test('a stale interaction is Refused', async () => {
    t.service.intercept(RESPOND).reply(409, { success: false, error: 'no active checkpoint' });
    const failure = t.env().call(t.activities.answerResearchCheckpoint, { deepresearchId: 'dr_1', interactionId: 'int_0', response: { approved: true } });
    await expect(failure).rejects.toMatchObject({ type: FailureType.Refused, nonRetryable: true });
  });
});

describe('cancelResearchTask', () => {
  test('cancels a running task', async () => {
    t.service.intercept(CANCEL).reply(200, ack('cancelled'));
    expect(await t.env().call(t.activities.cancelResearchTask, { deepresearchId: 'dr_1' })).toEqual({ cancelled: true, status: 'cancelled' });
  });

  test('a task that already ended is not an error', async () => {
    t.service.intercept(CANCEL).reply(400, { success: false, error: 'task cannot be cancelled' });
    t.service.intercept(STATUS).reply(200, taskBody({ status: 'completed' }));
    expect(await t.env().call(t.activities.cancelResearchTask, { deepresearchId: 'dr_1' })).toEqual({ cancelled: false, status: 'completed' });
  });

  test.each([['awaiting_input'], ['paused']])('a task that is %s is Refused, naming the status', async (status) => {
    t.service.intercept(CANCEL).reply(409, { success: false, error: 'task cannot be cancelled' });
    t.service.intercept(STATUS).reply(200, taskBody({ status }));
    const failure = t.env().call(t.activities.cancelResearchTask, { deepresearchId: 'dr_1' });
    await expect(failure).rejects.toMatchObject({ type: FailureType.Refused, nonRetryable: true, message: expect.stringContaining(`is ${status}`) });
  });

  test('a 5xx stays retryable', async () => {
    t.service.intercept(CANCEL).reply(502, 'bad gateway');
    await expect(t.env().call(t.activities.cancelResearchTask, { deepresearchId: 'dr_1' })).rejects.toMatchObject({
      type: FailureType.ServiceUnavailable,
      nonRetryable: false,
    });
  });
});

describe('deleteResearchTask', () => {
  test('deletes the task and forgets its webhook secret', async () => {
    await t.secrets.put('dr_1', 'f'.repeat(64));
    t.service.intercept(DELETE).reply(200, ack('deleted'));
    expect(await t.env().call(t.activities.deleteResearchTask, { deepresearchId: 'dr_1' })).toEqual({ deleted: true });
    expect(await t.secrets.get('dr_1')).toBeUndefined();
  });

  test('a task already gone (a retried delete) is deleted: false', async () => {
    t.service.intercept(DELETE).reply(404, { success: false, error: 'task not found' });
    expect(await t.env().call(t.activities.deleteResearchTask, { deepresearchId: 'dr_1' })).toEqual({ deleted: false });
  });

  test('deleting a running task is Refused', async () => {
    t.service.intercept(DELETE).reply(400, { success: false, error: 'task is still running' });
    await expect(t.env().call(t.activities.deleteResearchTask, { deepresearchId: 'dr_1' })).rejects.toMatchObject({ type: FailureType.Refused });
  });
});
