import type { Interaction } from '../../src/api/schemas';
import { checkpointAnswerProblem } from '../../src/workflows/checkpoint-answers';

const interaction = (type: Interaction['type']): Interaction => ({ interaction_id: 'int_1', type, created_at: 0, timeout_ms: 300_000 });

const cases: Array<[Interaction['type'], unknown, boolean]> = [
  ['planning_questions', { answers: [{ question: 'Which region?', answer: 'EU' }] }, true],
  ['planning_questions', { answers: [] }, false],
  ['planning_questions', { answers: [{ question: 'Which region?' }] }, false],
  ['planning_questions', { answers: [{ question: 'Q', answer: 'A', extra: 1 }] }, false],
  ['planning_questions', { approved: true }, false],
  ['plan_review', { approved: true }, true],
  ['plan_review', { approved: false, modifications: 'Add pricing' }, true],
  ['plan_review', { approved: false }, false],
  ['plan_review', { approved: false, modifications: '   ' }, false],
  ['plan_review', { approved: 'yes' }, false],
  ['plan_review', { approved: true, modifications: 'x' }, false],
  ['outline_review', { approved: true }, true],
  ['outline_review', { answers: [{ question: 'q', answer: 'a' }] }, false],
  ['source_review', { included_domains: ['sec.gov'], excluded_domains: [] }, true],
  ['source_review', { included_domains: ['sec.gov'] }, false],
  ['source_review', { included_domains: [''], excluded_domains: [] }, false],
  ['source_review', { included_domains: [], excluded_domains: [], approved: true }, false],
];

describe('checkpointAnswerProblem', () => {
  it.each(cases)('%s answered with %j is accepted: %s', (type, response, accepted) => {
    const problem = checkpointAnswerProblem(interaction(type), { interactionId: 'int_1', response });
    expect(problem === undefined).toBe(accepted);
  });

  it('names both interaction ids when an answer is for another checkpoint', () => {
    expect(checkpointAnswerProblem(interaction('plan_review'), { interactionId: 'int_0', response: { approved: true } })).toBe(
      'answer is for interaction int_0, but the current one is int_1',
    );
  });

  it('refuses an answer when no checkpoint waits', () => {
    expect(checkpointAnswerProblem(undefined, { interactionId: 'int_1', response: { approved: true } })).toMatch(/no checkpoint/);
  });

  it('refuses an answer without an interaction id or response object', () => {
    expect(checkpointAnswerProblem(interaction('plan_review'), { response: { approved: true } })).toMatch(/interactionId/);
    expect(checkpointAnswerProblem(interaction('plan_review'), { interactionId: 'int_1', response: 'yes' })).toBe(
      'response: must be an object, e.g. {"approved": true}, got "yes"',
    );
  });

  it.each([
    [
      'plan_review',
      { approved: false },
      'response.modifications: is required (a plan_review checkpoint takes {approved: true} or {approved: false, modifications})',
    ],
    ['plan_review', { approved: 'yes' }, 'response.approved: must be one of true|false (got "yes")'],
    ['planning_questions', { answers: [{ question: 'Which region?' }] }, 'response.answers[0].answer: is required'],
    ['source_review', { included_domains: 'sec.gov', excluded_domains: [] }, 'response.included_domains: must be a list (got "sec.gov")'],
    ['outline_review', { approved: true, modifications: 'x' }, 'response: unknown keys: modifications'],
  ] as const)('names the field and the rule of a %s response %j', (type, response, problem) => {
    expect(checkpointAnswerProblem(interaction(type), { interactionId: 'int_1', response })).toContain(problem);
  });
});
