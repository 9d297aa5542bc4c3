import { initialCarried, PipelineRunModel } from '../../src/workflows/pipeline-run-model';
import { stepRecordOf, stepReserve, stepsOutcome } from '../../src/workflows/pipeline-step-outcomes';
import type { PlannedItem } from '../../src/domain/pipeline-types';

const profile = stepRecordOf({ id: 'profile', kind: 'answer' }, { status: 'completed', costUsd: 0.12 }, 1);
const limits = { pipeline: 'enrich', concurrency: 2, ratePerSecond: 100, retries: 1, failRunOnItemFailure: false };
const item: PlannedItem = { key: 'acme', index: 0, where: 'item 1', reserveUsd: 1, stepwise: { value: {}, reserves: [0.3, 0.6, 0.1] } };

describe('steps outcomes', () => {
  it('an item completes with the sum of its steps, settled step by step', () => {
    const skipped = { id: 'brief', kind: 'deepresearch' as const, status: 'skipped' as const, costUsd: 0, finishedAt: 2 };
    expect(stepsOutcome([profile, skipped], { status: 'completed', costUsd: 0 })).toMatchObject({
      status: 'completed',
      costUsd: 0.12,
      settledBySteps: true,
      steps: [{ id: 'profile' }, { id: 'brief', status: 'skipped' }],
    });
  });

  it('a step that may have been charged fails the item naming it, and only that step follows a retry', () => {
    const lost = stepRecordOf({ id: 'news', kind: 'search' }, { status: 'failed', costUsd: 0.6, possiblyChargedUsd: 0.6, error: 'lost' }, 2);
    expect(stepsOutcome([profile, lost], { status: 'failed', costUsd: 0.6, error: 'lost' })).toMatchObject({
      status: 'failed',
      costUsd: 0.72,
      possiblyChargedUsd: 0.6,
      error: 'step news: lost',
    });
  });

  it('a step that cannot be rendered is recorded failed at no cost', () => {
    expect(
      stepsOutcome([profile], { status: 'failed', costUsd: 0, error: 'missing steps.profile.result' }, { id: 'brief', kind: 'deepresearch', at: 3 }),
    ).toMatchObject({
      costUsd: 0.12,
      steps: [{ id: 'profile' }, { id: 'brief', status: 'failed', costUsd: 0 }],
    });
  });
});

describe('the run model with steps', () => {
  it('settles each step as it ends and releases the rest when the item ends; a retry carries only what may have been charged', () => {
    const model = new PipelineRunModel(limits, initialCarried('r', '2026-11-25', 5, 0), 0);
    model.loadPage({ items: [item], cursor: { index: 1, byteOffset: 0, line: 0 }, done: true });
    model.start(item, 0);
    expect(model.ledger).toMatchObject({ reservedUsd: 1, spentUsd: 0 });
    model.settleStep('acme', 0.3, 0.12);
    expect(model.ledger).toMatchObject({ reservedUsd: 0.7, spentUsd: 0.12 });
    model.settleStep('acme', 0.6, 0.6);
    const lost = stepRecordOf({ id: 'news', kind: 'search' }, { status: 'failed', costUsd: 0.6, possiblyChargedUsd: 0.6, error: 'lost' }, 2);
    model.settle('acme', stepsOutcome([profile, lost], { status: 'failed', costUsd: 0.6 }), 3);
    // Nothing counted twice: the steps were settled as they ended, the item's end releases what it held.
    expect(model.ledger).toMatchObject({ reservedUsd: 0, spentUsd: 0.72 });
    const retry = model.peek();
    expect(retry).toMatchObject({ key: 'acme', attempts: 1, possiblyChargedUsd: 0.6 });
  });

  it('reserves more for a step only within the budget', () => {
    const model = new PipelineRunModel(limits, initialCarried('r', '2026-11-25', 1.2, 0), 0);
    model.loadPage({ items: [item], cursor: { index: 1, byteOffset: 0, line: 0 }, done: true });
    model.start(item, 0);
    expect(model.reserveMore('acme', 0.5)).toBe(false);
    expect(model.reserveMore('acme', 0.2)).toBe(true);
    expect(model.ledger.reservedUsd).toBeCloseTo(1.2, 6);
  });

  it('a steps item carried across continue-as-new holds nothing for the steps settled before, and what it held for the step it stood at', () => {
    const reserves = [0.3, 0.6, 0.1];
    expect(reserves.map((_, index) => stepReserve(reserves, index))).toEqual([0.3, 0.6, 0.1]);
    // It stood inside step 2's task, which had reserved more than planned.
    const from = { index: 1, reservedUsd: 0.8, workflowId: 'w/brief', records: [profile] };
    expect(reserves.map((_, index) => stepReserve(reserves, index, from))).toEqual([0, 0.8, 0.1]);
  });

  it('a draining run waits for a steps item that moves, and carries it where it stands, holding what it still reserves', () => {
    const model = new PipelineRunModel(limits, initialCarried('r', '2026-01-01', 5, 0), 0);
    model.loadPage({ items: [item], cursor: { index: 1, byteOffset: 0, line: 1 }, done: true });
    model.start(model.peek()!, 0);
    model.draining = true;
    // Planning or in a paid call: not carried.
    expect(model.drained).toBe(false);
    model.settleStep('acme', 0.3, 0.25);
    const at = { index: 1, reservedUsd: 0.6, workflowId: 'w/brief', records: [profile] };
    model.stepPosition('acme', at);
    expect(model.drained).toBe(true);
    const carried = model.toCarried({ runKey: 'r', runDate: 'd', startedAt: 0, executions: 2 });
    // Where it stands, with the records of the steps before it: the next execution reads nothing again before going on.
    expect(carried.inFlight).toEqual([{ item, attempts: 1, reservedUsd: 0.7, step: at }]);
    expect(carried.ledger).toEqual({ budgetUsd: 5, spentUsd: 0.25 });

    const next = new PipelineRunModel(limits, carried, 10);
    expect(next.carriedFlights()).toEqual([{ item, attempts: 1, step: at }]);
    expect(next.ledger.reservedUsd).toBeCloseTo(0.7, 6);
    // The item moves on past its step (the task ended): the run waits for it again.
    next.stepPosition('acme', undefined);
    expect(next.drained).toBe(false);
    expect(next.toCarried({ runKey: 'r', runDate: 'd', startedAt: 0, executions: 3 }).inFlight?.[0]).not.toHaveProperty('step');
  });
});
