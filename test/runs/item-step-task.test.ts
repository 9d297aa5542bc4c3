import { ItemStepTaskError, stepTaskOf, type ItemStepView } from '../../src/runs/item-steps';

const PROFILE: ItemStepView = { id: 'profile', kind: 'answer' };
const NEWS: ItemStepView = { id: 'news', kind: 'search' };
const brief = (more: Partial<ItemStepView> = {}): ItemStepView => ({ id: 'brief', kind: 'deepresearch', ...more });
const RUNNING = brief({ workflowId: 'research-task/p/r/acme/steps/brief', status: 'awaiting_input', open: true });

const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ItemStepTaskError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('the step task an operator acts on', () => {
  it('is the step whose task runs now, whether or not the run lists the item in flight', () => {
    expect(stepTaskOf([PROFILE, NEWS, RUNNING], 'acme', 'respond', { inFlight: true })).toBe(RUNNING);
    expect(stepTaskOf([PROFILE, NEWS, RUNNING], 'acme', 'cancel')).toBe(RUNNING);
  });

  it('is the named step when --step gives one, even if its task has ended', () => {
    const ended = brief({ workflowId: 'research-task/p/r/acme/steps/brief', status: 'completed', open: false });
    expect(stepTaskOf([PROFILE, ended], 'acme', 'cancel', { stepId: 'brief' })).toBe(ended);
  });

  it('names the call step an item in flight is at, and lists its steps', () => {
    expect(refusal(() => stepTaskOf([PROFILE, NEWS, brief()].slice(1), 'acme', 'respond', { inFlight: true }))).toBe(
      'item acme is at step news (a Search call), which has no task to respond to (its steps: news · search (a call); brief · deepresearch: no task yet)',
    );
    // After a task step ended, the item is at a call step after it.
    const ended = brief({ workflowId: 'w', status: 'completed', open: false });
    expect(refusal(() => stepTaskOf([ended, PROFILE], 'acme', 'resume', { inFlight: true }))).toMatch(
      /^item acme is at step profile \(an? Answer call\), which has no task to resume/,
    );
    expect(refusal(() => stepTaskOf([PROFILE, NEWS, brief()], 'acme', 'cancel', { inFlight: true }))).toMatch(
      /^item acme is at one of its call steps \(profile, news\), which have no task to cancel/,
    );
  });

  it('says when the item is not in flight', () => {
    const ended = brief({ workflowId: 'w', status: 'completed', open: false });
    expect(refusal(() => stepTaskOf([NEWS, ended], 'acme', 'respond', { inFlight: false }))).toBe(
      'item acme is not in flight, so no step task to respond to (its steps: news · search (a call); brief · deepresearch: completed (ended))',
    );
  });

  it('refuses a --step that is a call, unknown, or not reached', () => {
    expect(refusal(() => stepTaskOf([NEWS, RUNNING], 'acme', 'respond', { stepId: 'news' }))).toBe(
      'step news of item acme is a Search call, which has no task to respond to',
    );
    expect(refusal(() => stepTaskOf([NEWS, RUNNING], 'acme', 'cancel', { stepId: 'nope' }))).toMatch(/^item acme has no step nope \(its steps: news/);
    expect(refusal(() => stepTaskOf([NEWS, brief()], 'acme', 'cancel', { stepId: 'brief' }))).toMatch(
      /^step brief of item acme has no task to cancel \(not reached yet, or skipped by its when:/,
    );
  });
});
