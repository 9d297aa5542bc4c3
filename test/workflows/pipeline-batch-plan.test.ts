import { afterPrepared, initialBatchStepState, nextBatchRound, unrunRetries, type BatchStepState } from '../../src/workflows/pipeline-batch-plan';
import { initialCarried, PipelineRunModel } from '../../src/workflows/pipeline-run-model';

const ledger = (budgetUsd: number, spentUsd = 0, reservedUsd = 0) => ({ budgetUsd, spentUsd, reservedUsd });
const running = { paused: false, stopping: false, ledger: ledger(10) };
const cursor = { index: 500, byteOffset: 9_000, line: 501 };

describe('nextBatchRound', () => {
  it('takes the input from its cursor until it is used up, then is done', () => {
    const state = initialBatchStepState();
    expect(nextBatchRound(state, running)).toEqual({ kind: 'take', take: { from: 'input', skip: 0 } });
    const after = afterPrepared(state, state.input, { next: { from: 'input', cursor, skip: 0 }, exhausted: false, tasks: 500 });
    expect(after).toMatchObject({ rounds: 1, input: { cursor }, inputExhausted: false });
    expect(nextBatchRound(after, running)).toEqual({ kind: 'take', take: { from: 'input', cursor, skip: 0 } });
    const done = afterPrepared(after, after.input, { next: { from: 'input', cursor, skip: 0 }, exhausted: true, tasks: 3 });
    expect(nextBatchRound(done, running)).toEqual({ kind: 'done' });
  });

  it('runs failed tasks again before new input, and forgets the retry list once it is taken', () => {
    const state: BatchStepState = { ...initialBatchStepState(), retry: { from: 'retry', key: 't', itemsKey: 'i', count: 4, skip: 0 } };
    const decision = nextBatchRound(state, running);
    expect(decision).toEqual({ kind: 'take', take: state.retry });
    const after = afterPrepared(state, state.retry!, { next: { ...state.retry!, skip: 4 }, exhausted: true, tasks: 4 });
    expect(after.retry).toBeUndefined();
    expect(nextBatchRound(after, running)).toEqual({ kind: 'take', take: { from: 'input', skip: 0 } });
  });

  it('waits for a raise while the task the budget stopped at does not fit, and goes on once it does', () => {
    const state = afterPrepared(
      initialBatchStepState(),
      { from: 'input', skip: 0 },
      { next: { from: 'input', skip: 7 }, exhausted: false, blockedUsd: 0.1, tasks: 7 },
    );
    expect(state.blockedUsd).toBe(0.1);
    expect(nextBatchRound(state, { ...running, ledger: ledger(0.75, 0.7) })).toEqual({ kind: 'wait', reason: 'budget_blocked' });
    expect(nextBatchRound(state, { ...running, ledger: ledger(0.8, 0.7) })).toEqual({ kind: 'take', take: { from: 'input', skip: 7 } });
    // Money held by a round in flight is not free.
    expect(nextBatchRound(state, { ...running, ledger: ledger(1, 0.5, 0.45) })).toEqual({ kind: 'wait', reason: 'budget_blocked' });
  });

  it('holds the next round while paused, and starts nothing once the run stops, retries included', () => {
    const state: BatchStepState = { ...initialBatchStepState(), retry: { from: 'retry', key: 't', itemsKey: 'i', count: 4, skip: 1 } };
    expect(nextBatchRound(state, { ...running, paused: true })).toEqual({ kind: 'wait', reason: 'paused' });
    expect(nextBatchRound(state, { ...running, stopping: true })).toEqual({ kind: 'done' });
    expect(unrunRetries(state)).toBe(3);
    expect(unrunRetries(initialBatchStepState())).toBe(0);
  });

  it('a paused run with nothing left to take is done, not waiting', () => {
    const state = { ...initialBatchStepState(), inputExhausted: true };
    expect(nextBatchRound(state, { ...running, paused: true })).toEqual({ kind: 'done' });
  });
});

describe('PipelineRunModel for batch rounds', () => {
  const limits = { pipeline: 'p', concurrency: 5, ratePerSecond: 1, retries: 1, failRunOnItemFailure: false };
  const round = { read: 10, reused: 2, invalid: 1, tasks: 7, reservedUsd: 0.7, problems: [{ key: 'bad', error: 'item 3: {{ item.name }} is missing' }] };

  it('reserves a round, counts what it read, then settles its real cost and final outcomes', () => {
    const run = new PipelineRunModel(limits, initialCarried('r', 'd', 1, 0), 0);
    run.batchPrepared(round, 1_000);
    expect(run.counts).toMatchObject({ read: 10, reused: 2, failed: 1, running: 7 });
    expect(run.ledger).toEqual({ budgetUsd: 1, spentUsd: 0, reservedUsd: 0.7 });
    expect(run.failures).toEqual([{ key: 'bad', error: 'item 3: {{ item.name }} is missing', attempts: 0 }]);
    run.batchSettled(0.7, { completed: 5, failed: 0, cancelled: 0, costUsd: 0.6, failures: [] }, 61_000);
    expect(run.counts).toMatchObject({ completed: 5, failed: 1, running: 0 });
    expect(run.ledger).toEqual({ budgetUsd: 1, spentUsd: 0.6, reservedUsd: 0 });
    expect(run.activeTime(61_000)).toBe(60_000);
    expect(run.total).toBeUndefined();
    run.batchInputDone();
    expect(run.total).toBe(10);
  });

  it('fails the run after a round when an item failed and on_item_failure is fail_run', () => {
    const run = new PipelineRunModel({ ...limits, failRunOnItemFailure: true }, initialCarried('r', 'd', 1, 0), 0);
    run.batchPrepared({ ...round, invalid: 0, problems: [] }, 0);
    expect(run.stopping).toBe(false);
    run.batchSettled(
      0.7,
      { completed: 6, failed: 1, cancelled: 0, costUsd: 0.7, failures: [{ key: 'k', error: 'the service reported the task failed', attempts: 2 }] },
      1,
    );
    expect(run.fatal).toMatch(/item "k" failed/);
    expect(run.stopping).toBe(true);
  });
});
