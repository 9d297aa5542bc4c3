import type { TaskSnapshot } from '../../src/activities/types';
import type { Interaction } from '../../src/api/schemas';
import { checkpointHowTo, checkpointQuestions, ResearchTaskModel } from '../../src/workflows/task-state';

const review: Interaction = { interaction_id: 'int_2', type: 'plan_review', created_at: 0, timeout_ms: 300_000 };
const snapshot = (status: TaskSnapshot['status'], extra: Partial<TaskSnapshot> = {}): TaskSnapshot => ({
  deepresearchId: 'dr_1',
  status,
  mode: 'standard',
  ...extra,
});

function created(checkpoints: ConstructorParameters<typeof ResearchTaskModel>[1] = []): ResearchTaskModel {
  const model = new ResearchTaskModel('standard', checkpoints);
  model.deepresearchId = 'dr_1';
  return model;
}

describe('ResearchTaskModel', () => {
  it('exposes the interaction while a checkpoint waits and says why the workflow waits', () => {
    const model = created(['plan_review']);
    expect(model.apply(snapshot('awaiting_input', { interaction: review }), 1_000)).toBe(true);
    expect(model.toState()).toMatchObject({ status: 'awaiting_input', waitingFor: 'checkpoint', interaction: review });
    expect(model.toState().detail).toContain('plan_review');
    model.apply(snapshot('paused', { interaction: review }), 2_000);
    expect(model.toState().detail).toMatch(/^paused at plan_review/);
  });

  it('counts the time spent waiting for a human', () => {
    const model = created(['plan_review']);
    model.apply(snapshot('running'), 0);
    model.apply(snapshot('awaiting_input', { interaction: review }), 10_000);
    model.apply(snapshot('paused', { interaction: review }), 20_000);
    model.apply(snapshot('running'), 70_000);
    expect(model.waitingForInputMs).toBe(60_000);
  });

  it('counts a wait still open when the workflow ends (a task left waiting at a checkpoint)', () => {
    const model = created(['plan_review']);
    model.apply(snapshot('awaiting_input', { interaction: review }), 10_000);
    model.endWaits(45_000);
    expect(model.waitingForInputMs).toBe(35_000);
    model.endWaits(90_000);
    expect(model.waitingForInputMs).toBe(35_000);
  });

  it('shows the wait for a person so far in the state, before the task ends', () => {
    const model = created(['plan_review']);
    model.apply(snapshot('awaiting_input', { interaction: review }), 10_000);
    expect(model.toState(70_000).waitingForInputMs).toBe(60_000);
  });

  it('shows the planning questions in the current details, with the answer to send', () => {
    const model = created(['planning_questions']);
    const questions: Interaction = {
      interaction_id: 'int_1',
      type: 'planning_questions',
      created_at: 0,
      timeout_ms: 300_000,
      data: {
        context: 'A few answers will focus the research plan.',
        questions: [
          { id: 'q1', question: 'Which region?' },
          { id: 'q2', question: 'Since when?' },
        ],
      },
    };
    model.apply(snapshot('awaiting_input', { interaction: questions }), 0);
    expect(model.details()).toContain('the research asks:\n1. Which region?\n2. Since when?');
    expect(model.details()).toContain('respondToCheckpoint');
    expect(checkpointQuestions({ type: 'planning_questions', expected_response: { answers: [{ question: 'Budget?', answer: 'string' }] } })).toEqual([
      'Budget?',
    ]);
    expect(checkpointQuestions(review)).toEqual([]);
  });

  it('hides an interaction once answered, so a second answer to it is refused', () => {
    const model = created(['plan_review']);
    model.apply(snapshot('awaiting_input', { interaction: review }), 0);
    expect(model.answerProblem({ interactionId: 'int_2', response: { approved: true } })).toBeUndefined();
    model.markAnswered('int_2');
    // The service may still report the old checkpoint until it re-queues the task.
    model.apply(snapshot('awaiting_input', { interaction: review }), 1);
    expect(model.interaction).toBeUndefined();
    expect(model.answerProblem({ interactionId: 'int_2', response: { approved: true } })).toMatch(/no checkpoint/);
  });

  it('refuses answers while no checkpoint waits, naming the status', () => {
    const model = created();
    model.apply(snapshot('running'), 0);
    expect(model.answerProblem({ interactionId: 'x', response: { approved: true } })).toMatch(/task is running/);
  });

  it('keeps the last 20 rejected answers', () => {
    const model = created();
    for (let index = 0; index < 25; index++) model.reject(`int_${index}`, 'bad', index);
    expect(model.toState().rejectedAnswers).toHaveLength(20);
    expect(model.toState().rejectedAnswers[0]?.interactionId).toBe('int_5');
  });

  it('accepts instructions only while queued or running', () => {
    const model = new ResearchTaskModel('fast', []);
    expect(model.instructionProblem('focus on EU')).toMatch(/not been created/);
    model.deepresearchId = 'dr_1';
    model.apply(snapshot('running'), 0);
    expect(model.instructionProblem('focus on EU')).toBeUndefined();
    expect(model.instructionProblem('  ')).toMatch(/non-empty/);
    model.apply(snapshot('completed'), 1);
    expect(model.instructionProblem('focus on EU')).toMatch(/task is completed/);
    expect(model.terminal).toBe(true);
  });

  it('knows whether enabled checkpoints may still come', () => {
    const model = created(['planning_questions', 'outline_review']);
    expect(model.checkpointsAhead).toBe(true);
    model.apply(snapshot('awaiting_input', { interaction: { ...review, type: 'outline_review' } }), 0);
    expect(model.checkpointsAhead).toBe(false);
    expect(created([]).checkpointsAhead).toBe(false);
  });
});

describe('ResearchTaskModel.details', () => {
  it('shows status, task, progress, why it waits and cost for the Temporal UI', () => {
    const model = created(['plan_review']);
    model.apply(snapshot('awaiting_input', { interaction: review, progress: { currentStep: 2, totalSteps: 15 }, cost: 0.5 }), 0);
    expect(model.details()).toBe(
      [
        '**awaiting_input** · task `dr_1` · standard',
        'step 2 of 15',
        'waiting for an answer to plan_review (interaction int_2)',
        'to go on, run the **respondToCheckpoint** update with `{"interactionId": "int_2", "response": {"approved": true}}` (or `rp respond <run> --item <key> --interaction int_2 --response \'{"approved": true}\'`)',
        'cost 0.50 USD',
      ].join('\n\n'),
    );
  });

  it('does not offer respondToCheckpoint once the workflow ended with its task left open at the service', () => {
    const model = created(['plan_review']);
    model.apply(snapshot('awaiting_input', { interaction: review }), 0);
    model.status = 'cancel_refused';
    expect(model.details()).not.toContain('respondToCheckpoint');
    expect(model.details()).toContain(
      'the checkpoint plan_review (interaction int_2) stays open at the service; this workflow has ended and takes no answer: start its pipeline run again with the same run key to follow the task',
    );
  });

  it('shows the answer shape each checkpoint type takes', () => {
    expect(checkpointHowTo('planning_questions', 'int_9')).toContain('{"interactionId": "int_9", "response": {"answers": [{"question": "…", "answer": "…"}]}}');
    expect(checkpointHowTo('source_review', 'int_9')).toContain('"included_domains"');
    expect(checkpointHowTo('something_new', 'int_9')).toContain('"response": <the answer>');
  });
});

describe('ResearchTaskModel answers refused by the service', () => {
  it('shows the checkpoint again, ready for another answer', () => {
    const model = created(['plan_review']);
    model.apply(snapshot('awaiting_input', { interaction: review }), 0);
    model.markAnswered('int_2');
    expect(model.answerProblem({ interactionId: 'int_2', response: { approved: true } })).toMatch(/no checkpoint/);
    model.unmarkAnswered('int_2');
    expect(model.interaction).toEqual(review);
    expect(model.toState()).toMatchObject({ waitingFor: 'checkpoint' });
    expect(model.toState().detail).toContain('the last one was refused');
    expect(model.answerProblem({ interactionId: 'int_2', response: { approved: true } })).toBeUndefined();
  });
});
