import { parseCreateDecision, parseWebhookNotice } from '../../src/workflows/message-checks';

describe('parseWebhookNotice', () => {
  it('keeps the known fields of a well-formed notice and drops the rest', () => {
    expect(parseWebhookNotice({ deepresearchId: 'dr_1', status: 'completed', extra: 1 })).toEqual({ notice: { deepresearchId: 'dr_1', status: 'completed' } });
    expect(parseWebhookNotice({})).toEqual({ notice: {} });
  });

  it.each([
    [undefined, 'webhookReceived needs an object like {deepresearchId, status}, got nothing'],
    ['done', 'webhookReceived needs an object like {deepresearchId, status}, got "done"'],
    [[1], 'webhookReceived needs an object like {deepresearchId, status}, got [1]'],
    [{ deepresearchId: 7 }, 'deepresearchId: must be a non-empty string when given, got 7'],
    [{ status: '' }, 'status: must be a non-empty string when given, got ""'],
    [{ batchId: null, status: 3 }, 'batchId: must be a non-empty string when given, got null; status: must be a non-empty string when given, got 3'],
  ])('refuses %p, saying why', (payload, problem) => {
    expect(parseWebhookNotice(payload)).toEqual({ problem });
  });
});

describe('parseCreateDecision', () => {
  it('accepts exactly an adoption or a create-again', () => {
    expect(parseCreateDecision({ adoptTaskId: ' dr_9 ' })).toEqual({ decision: { adoptTaskId: 'dr_9' } });
    expect(parseCreateDecision({ createAgain: true })).toEqual({ decision: { createAgain: true } });
  });

  it.each([
    null,
    undefined,
    {},
    'dr_9',
    { adoptTaskId: '' },
    { adoptTaskId: '   ' },
    { createAgain: false },
    { createAgain: 'yes' },
    { adoptTaskId: 'dr_9', createAgain: true },
  ])('refuses %p instead of reading it as create again', (payload) => {
    const parsed = parseCreateDecision(payload);
    expect(parsed).toEqual({ problem: expect.stringMatching(/^resolveCreate needs \{"adoptTaskId": "<task id>"\} or \{"createAgain": true\}, got /) });
  });

  it('shortens a long payload in the reason', () => {
    const parsed = parseCreateDecision({ note: 'x'.repeat(500) });
    expect('problem' in parsed && parsed.problem.length).toBeLessThan(200);
  });
});
