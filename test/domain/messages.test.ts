import {
  budgetRaise,
  checkMessage,
  checkpointAnswer,
  createDecision,
  describeValue,
  followUpInstruction,
  itemAdoptedNotice,
  itemSettledReport,
  itemWaitingNotice,
  pipelineControlNote,
  webhookNotice,
} from '../../src/domain/messages';

const problem = (schema: Parameters<typeof checkMessage>[0], value: unknown) => {
  const checked = checkMessage(schema, value);
  return 'problem' in checked ? checked.problem : undefined;
};

describe('checkMessage', () => {
  it('gives the parsed value of a message that fits', () => {
    expect(checkMessage(budgetRaise, { addUsd: 2 })).toEqual({ value: { addUsd: 2 } });
  });

  it('names each field at fault with its rule, all of them, and the whole payload by its rule alone', () => {
    expect(problem(itemWaitingNotice, { item: '', waiting: 'lunch' })).toBe('item: must be the item key; waiting: must be "checkpoint", "operator" or null');
    expect(problem(itemWaitingNotice, 7)).toBe('payload must be {item, waiting}');
  });

  it('puts the path of the value before the field, with list indexes', () => {
    const checked = checkMessage(checkpointAnswer, { interactionId: 'int_1', response: 'x' }, { at: ['body'] });
    expect(checked).toEqual({ problem: 'body.response: must be an object, e.g. {"approved": true}, got "x"' });
  });

  it('names top-level fields as the caller knows them (CLI options)', () => {
    expect(checkMessage(budgetRaise, { addUsd: Number.NaN }, { names: { addUsd: '--add' } })).toEqual({ problem: '--add: must be a number more than 0' });
  });

  it('quotes a long payload shortened, and a missing one as nothing', () => {
    expect(describeValue(undefined)).toBe('nothing');
    expect(describeValue('x'.repeat(200))).toHaveLength(80);
  });
});

describe('webhookReceived', () => {
  it('keeps the known hints and drops unknown fields', () => {
    expect(checkMessage(webhookNotice, { deepresearchId: 'dr_1', status: 'completed', extra: 1 })).toEqual({
      value: { deepresearchId: 'dr_1', status: 'completed' },
    });
    expect(checkMessage(webhookNotice, {})).toEqual({ value: {} });
  });

  it.each([
    [undefined, 'webhookReceived needs an object like {deepresearchId, status}, got nothing'],
    [[1], 'webhookReceived needs an object like {deepresearchId, status}, got [1]'],
    [{ batchId: 5 }, 'batchId: must be a non-empty string when given, got 5'],
    [{ status: '' }, 'status: must be a non-empty string when given, got ""'],
  ])('refuses %p', (payload, reason) => {
    expect(problem(webhookNotice, payload)).toBe(reason);
  });
});

describe('resolveCreate / resolveCreateOutcome', () => {
  it('takes an adoption (trimmed) or a create-again, and nothing else', () => {
    expect(createDecision.parse({ adoptTaskId: ' dr_9 ' })).toEqual({ adoptTaskId: 'dr_9' });
    expect(createDecision.parse({ createAgain: true })).toEqual({ createAgain: true });
    for (const payload of [
      undefined,
      {},
      { adoptTaskId: ' ' },
      { adoptTaskId: 7 },
      { createAgain: false },
      { adoptTaskId: 'dr_9', createAgain: true },
      { adoptTaskId: 'dr_9', note: 'x' },
    ]) {
      expect(createDecision.safeParse(payload).success).toBe(false);
    }
  });
});

describe('checkpointResponse / respondToCheckpoint envelope', () => {
  it('takes an interaction id and a response object; other fields are ignored, as the workflow always has', () => {
    expect(checkMessage(checkpointAnswer, { interactionId: 'int_1', response: { approved: true }, note: 'x' })).toEqual({
      value: { interactionId: 'int_1', response: { approved: true } },
    });
  });

  it.each([
    [null, 'an answer needs {interactionId, response}, got null'],
    [{ response: {} }, "interactionId: must be the checkpoint's interaction id (text)"],
    [{ interactionId: '', response: {} }, 'interactionId: must not be empty'],
    [{ interactionId: 'int_1' }, 'response: must be an object, e.g. {"approved": true}, got nothing'],
    [{ interactionId: 'int_1', response: [true] }, 'response: must be an object, e.g. {"approved": true}, got [true]'],
  ])('refuses %p', (payload, reason) => {
    expect(problem(checkpointAnswer, payload)).toBe(reason);
  });

  it('refuses unknown fields where the caller asks for a strict body (the intake)', () => {
    expect(problem(checkpointAnswer.strict(), { interactionId: 'int_1', response: {}, note: 'x' })).toBe(
      'unknown field "note" (allowed: interactionId, response)',
    );
  });
});

describe('addInstruction', () => {
  it('takes text with something in it', () => {
    expect(problem(followUpInstruction, 'Focus on Texas.')).toBeUndefined();
    expect(problem(followUpInstruction, '   ')).toBe('an instruction must be non-empty text');
    expect(problem(followUpInstruction, 3)).toBe('an instruction must be non-empty text');
  });
});

describe('pipelineItemAdopted', () => {
  it('needs the run to report to', () => {
    expect(itemAdoptedNotice.safeParse({ run: 'pipeline-run/p/r' }).success).toBe(true);
    expect(itemAdoptedNotice.safeParse({ run: '' }).success).toBe(false);
    expect(itemAdoptedNotice.safeParse(null).success).toBe(false);
  });
});

describe('pausePipeline / resumePipeline', () => {
  it('takes nothing, null or {reason}', () => {
    for (const payload of [undefined, null, {}, { reason: 'lunch' }]) expect(problem(pipelineControlNote, payload)).toBeUndefined();
  });

  it.each([
    ['stop', 'payload must be nothing or {reason: "text"}'],
    [{ reason: 3 }, 'reason: must be text'],
    [{ why: 'x' }, 'unknown field "why" (allowed: reason)'],
  ])('refuses %p', (payload, reason) => {
    expect(problem(pipelineControlNote, payload)).toBe(reason);
  });
});

describe('raiseBudget', () => {
  it('takes exactly one positive amount, as a new total or an amount to add', () => {
    expect(budgetRaise.parse({ budgetUsd: 10 })).toEqual({ budgetUsd: 10 });
    expect(budgetRaise.parse({ addUsd: 0.5 })).toEqual({ addUsd: 0.5 });
  });

  it.each([
    [5, 'give {budgetUsd: <new total>} or {addUsd: <amount>}'],
    [{}, 'give exactly one of budgetUsd (the new total) or addUsd (an amount to add)'],
    [{ addUsd: 1, budgetUsd: 5 }, 'give exactly one of budgetUsd (the new total) or addUsd (an amount to add)'],
    [{ addUsd: 0 }, 'addUsd: must be a number more than 0'],
    [{ addUsd: '5' }, 'addUsd: must be a number more than 0'],
    [{ budgetUsd: Number.POSITIVE_INFINITY }, 'budgetUsd: must be a number more than 0'],
    [{ addUsd: 1, usd: 1 }, 'unknown field "usd" (allowed: budgetUsd, addUsd)'],
  ])('refuses %p', (payload, reason) => {
    expect(problem(budgetRaise, payload)).toBe(reason);
  });
});

describe('pipelineItemWaiting', () => {
  it('takes an item and what it waits for, or null', () => {
    expect(checkMessage(itemWaitingNotice, { item: 'a', waiting: null, extra: 1 })).toEqual({ value: { item: 'a', waiting: null } });
    expect(problem(itemWaitingNotice, { item: 'a' })).toBe('waiting: must be "checkpoint", "operator" or null');
  });
});

describe('pipelineItemSettled', () => {
  it('takes an ended item; a completed one with its result', () => {
    expect(problem(itemSettledReport, { item: 'a', workflowId: 'w', status: 'completed', result: {} })).toBeUndefined();
    expect(problem(itemSettledReport, { item: 'a', workflowId: 'w', status: 'failed', error: 'x' })).toBeUndefined();
  });

  it.each([
    ['nope', 'payload must be {item, workflowId, status}'],
    [{ item: 'a', workflowId: 'w', status: 'done' }, 'status: must be "completed", "cancelled" or "failed"'],
    [{ item: 'a', workflowId: 'w' }, 'status: must be "completed", "cancelled" or "failed"'],
    [{ item: 'a', status: 'cancelled' }, "workflowId: must be the item's workflow id"],
    [{ item: 'a', workflowId: 'w', status: 'completed' }, 'result: a completed item reports its result'],
  ])('refuses %p', (payload, reason) => {
    expect(problem(itemSettledReport, payload)).toBe(reason);
  });
});
