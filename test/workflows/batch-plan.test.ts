import { batchInputProblems, batchRunDetails, chunk, isBatchFinished, nextBatchPollDelayMs } from '../../src/workflows/batch-plan';
import { researchBatchWorkflowId, researchTaskWorkflowId, contextMetadata, storageKey } from '../../src/domain/ids';

describe('batch planning', () => {
  it('splits 250 tasks into adds of 100, 100 and 50', () => {
    const tasks = Array.from({ length: 250 }, (_, index) => index);
    expect(chunk(tasks).map((part) => part.length)).toEqual([100, 100, 50]);
    expect(chunk(tasks).flat()).toEqual(tasks);
  });

  it('refuses every batch limit up front, naming the field', () => {
    const problems = batchInputProblems({ hitl: { plan_review: true }, deliverables: ['a csv'], files: [], mcp_servers: [], previous_reports: [] }, [
      { id: 'a', query: 'q' },
      { id: 'a', query: ' ' },
      { id: '', query: 'x'.repeat(25_001) },
    ]);
    expect(problems).toEqual([
      'batch.hitl: batch tasks cannot use checkpoints (hitl)',
      'batch.deliverables: batch tasks cannot use deliverables',
      'batch.files: batch tasks cannot use files',
      'batch.mcp_servers: batch tasks cannot use MCP servers',
      'batch.previous_reports: batch tasks cannot use previous reports',
      'tasks[1].id: duplicate id "a"',
      'tasks[1].query: must be non-empty text',
      'tasks[2].id: must be a non-empty string',
      'tasks[2].query: at most 25,000 characters',
    ]);
  });

  it('accepts a plain batch', () => {
    expect(batchInputProblems({ mode: 'fast' }, [{ id: '1', query: 'q' }])).toEqual([]);
    expect(batchInputProblems({}, [])).toEqual(['tasks: a batch needs at least one task']);
  });

  it('knows which batch states are final', () => {
    expect(['open', 'processing'].map((status) => isBatchFinished(status as never))).toEqual([false, false]);
    expect(['completed', 'completed_with_errors', 'cancelled'].every((status) => isBatchFinished(status as never))).toBe(true);
  });

  it('polls a batch every 10 s at first, growing to a cap, slower with a webhook', () => {
    expect(nextBatchPollDelayMs({ elapsedMs: 0, webhookConfigured: false })).toBe(10_000);
    expect(nextBatchPollDelayMs({ elapsedMs: 10 * 3_600_000, webhookConfigured: false })).toBe(120_000);
    expect(nextBatchPollDelayMs({ elapsedMs: 0, webhookConfigured: true })).toBe(40_000);
  });
});

describe('workflow ids', () => {
  it('are deterministic from pipeline, run and item', () => {
    const context = { pipeline: 'competitors', run: '2026-11-21', item: 'acme corp' };
    expect(researchTaskWorkflowId(context)).toBe('research-task/competitors/2026-11-21/acme-corp');
    expect(researchTaskWorkflowId(context)).toBe(researchTaskWorkflowId({ ...context }));
    expect(researchBatchWorkflowId({ pipeline: 'p', run: 'r' })).toBe('research-batch/p/r/all');
  });

  it('name the pipeline, run and item in task metadata', () => {
    expect(contextMetadata({ pipeline: 'p', run: 'r', item: 'i' })).toEqual({ rp_pipeline: 'p', rp_run: 'r', rp_item: 'i' });
    expect(contextMetadata(undefined)).toEqual({});
  });
});

describe('storageKey', () => {
  it('turns a workflow id into one safe path segment', () => {
    expect(storageKey('research-task/p/r/acme corp')).toBe('research-task_p_r_acme_corp');
  });
});

describe('batch tasks by reference', () => {
  it('checks the reference instead of inline tasks, naming the field', () => {
    expect(batchInputProblems({ mode: 'fast' }, [], { key: 'inputs/a.jsonl', count: 120 })).toEqual([]);
    expect(batchInputProblems({ mode: 'fast' }, [{ id: 'a', query: 'q' }], { key: 'inputs/a.jsonl', count: 1 })).toEqual([
      'tasks: give the tasks inline or by tasksRef, not both',
    ]);
    expect(batchInputProblems({}, [], { key: '', count: 2.5 })).toEqual([
      'tasksRef.key: must be the artifact key of a JSON-lines task list',
      'tasksRef.count: must be a whole number of tasks, at least 1',
    ]);
  });
});

describe("a batch workflow's current details", () => {
  it("shows the phase, the batch, the tasks added so far and the service's counts", () => {
    expect(
      batchRunDetails({
        phase: 'following',
        batchId: 'b_1',
        tasksAdded: 250,
        tasksTotal: 250,
        counts: { total: 250, queued: 0, running: 10, completed: 200, failed: 3, cancelled: 0 },
      }),
    ).toBe('**following** · batch `b_1` · 250/250 added · 200/250 completed, 3 failed');
  });

  it('shows a batch not yet created, and why it waits for an operator', () => {
    expect(batchRunDetails({ phase: 'creating', tasksAdded: 0, tasksTotal: 250, detail: 'credits exhausted (402): top up, then send resume' })).toBe(
      '**creating** · batch `…` · 0/250 added\n\ncredits exhausted (402): top up, then send resume',
    );
  });
});
