import { itemStepsText } from '../../src/commands/item-steps';
import { itemStatusText, runStatusText } from '../../src/commands/runs';
import type { PipelineRunState } from '../../src/domain/pipeline-types';
import type { ResearchTaskState } from '../../src/workflows/types';

const run = (extra: Partial<PipelineRunState> = {}): PipelineRunState => ({
  pipeline: 'scan',
  runKey: 'r1',
  phase: 'running',
  counts: { read: 10, completed: 4, failed: 0, running: 3, reused: 0, cancelled: 0, skipped: 0 },
  total: 10,
  ledger: { budgetUsd: 5, spentUsd: 1, reservedUsd: 0.3 },
  itemsPerMinute: 2,
  etaMs: 180_000,
  failures: [],
  running: ['a', 'b', 'c'],
  waiting: { checkpoint: [], operator: [] },
  executions: 1,
  rejectedMessages: [],
  ...extra,
});

const task = (extra: Partial<ResearchTaskState> = {}): ResearchTaskState => ({
  deepresearchId: 'dr_1',
  status: 'awaiting_input',
  mode: 'fast',
  waitingFor: 'checkpoint',
  rejectedAnswers: [],
  rejectedSignals: [],
  instructions: [],
  polls: 3,
  webhooks: 0,
  reconcilingMs: 0,
  ...extra,
});

describe('rp status', () => {
  it('shows a run blocked on people: how many answers it waits for and the oldest wait', () => {
    const text = runStatusText(
      run({ waiting: { checkpoint: ['a', 'b', 'c'], operator: [] }, waitingLongestMs: { checkpoint: 2 * 3_600_000 }, etaMs: undefined }),
    );
    expect(text).toContain('  waiting for 3 answers, oldest 2h 0m: answer with rp respond');
    expect(text).toContain('  rate: 2 items/min\n');
  });

  it('says the time left in words, and nothing of it once the run has ended', () => {
    expect(runStatusText(run())).toContain('about 3m 0s left');
    expect(runStatusText(run({ phase: 'completed', etaMs: undefined }))).not.toMatch(/left/);
  });

  it("shows an item's planning questions and the command that answers them", () => {
    const text = itemStatusText(
      'scan/r1',
      'a',
      task({
        interaction: {
          interaction_id: 'int_1',
          type: 'planning_questions',
          created_at: 0,
          timeout_ms: 300_000,
          data: { questions: [{ id: 'q1', question: 'Which region?' }] },
        },
        waitingForInputMs: 120_000,
      }),
    );
    expect(text).toContain('checkpoint planning_questions, interaction int_1\n    1. Which region?');
    expect(text).toContain(`answer: rp respond scan/r1 --item a --interaction int_1 --response '{"answers":[{"question":"Which region?","answer":"…"}]}'`);
    expect(text).toContain('waited for a person: 2m 0s');
  });

  it('does not offer an answer for a checkpoint left open by a workflow that has ended', () => {
    const text = itemStatusText(
      'scan/r1',
      'a',
      task({ status: 'cancel_refused', interaction: { interaction_id: 'int_2', type: 'plan_review', created_at: 0, timeout_ms: 300_000 } }),
    );
    expect(text).not.toContain('rp respond');
    expect(text).toContain('this workflow has ended and takes no answer');
  });

  it("shows a steps item's steps: calls as calls, each research task with its workflow, status and cost, and a step not reached", () => {
    const text = itemStepsText('enrich/r1', 'acme', [
      { id: 'profile', kind: 'answer' },
      { id: 'brief', kind: 'deepresearch', workflowId: 'pipeline-item/enrich/r1/acme/steps/brief', status: 'awaiting_input', costUsd: 0.1 },
      { id: 'deep', kind: 'workflow' },
    ]);
    expect(text).toBe(
      [
        'acme: 3 steps',
        '  profile · answer: a call, recorded with the item (no workflow of its own)',
        '  brief · deepresearch: awaiting_input · workflow pipeline-item/enrich/r1/acme/steps/brief · cost 0.10 USD',
        '  deep · workflow: no research task (not reached, or skipped by its when:)',
        '',
      ].join('\n'),
    );
  });

  it("shows the checkpoint a steps item's running step task waits at, with the rp respond line that answers it", () => {
    const text = itemStepsText('enrich/r1', 'acme', [
      { id: 'news', kind: 'search' },
      {
        id: 'brief',
        kind: 'deepresearch',
        workflowId: 'research-task/enrich/r1/acme/steps/brief',
        status: 'awaiting_input',
        open: true,
        interaction: { interaction_id: 'int_9', type: 'plan_review', created_at: 0, timeout_ms: 300_000 },
      },
    ]);
    expect(text).toContain(
      '  brief · deepresearch: awaiting_input · workflow research-task/enrich/r1/acme/steps/brief\n    checkpoint plan_review, interaction int_9\n',
    );
    expect(text).toContain(`    answer: rp respond enrich/r1 --item acme --interaction int_9 --response '{"approved": true}'\n`);
  });
});
