import { initialCarried, PipelineRunModel } from '../../src/workflows/pipeline-run-model';
import {
  estimateTimeLeft,
  peopleWaitText,
  itemSettledProblem,
  itemWaitingProblem,
  operatorSignalProblem,
  runDetails,
} from '../../src/workflows/pipeline-progress';
import type { PlannedItem } from '../../src/domain/pipeline-types';

const item = (key: string, index: number, extra: Partial<PlannedItem> = {}): PlannedItem => ({
  key,
  index,
  where: `item ${index + 1}`,
  reserveUsd: 0.1,
  request: { kind: 'search', request: { query: key } },
  ...extra,
});
const limits = { pipeline: 'p', concurrency: 2, ratePerSecond: 100, retries: 1, failRunOnItemFailure: false };
const cursor = (index: number) => ({ index, byteOffset: index * 10, line: index });

function model(budgetUsd = 1, extra: Partial<typeof limits> = {}): PipelineRunModel {
  return new PipelineRunModel({ ...limits, ...extra }, initialCarried('r', '2026-01-01', budgetUsd, 0), 0);
}

describe('PipelineRunModel', () => {
  it("says where the next page starts while the current one is worked through: the page's end, none taken, the same as the read at the boundary", () => {
    const run = model(10, { concurrency: 5 });
    expect(run.nextPageRequest()).toBeUndefined();
    run.loadPage({ items: [item('a', 0), item('b', 1), item('c', 2)], cursor: cursor(4), done: false });
    expect(run.pageLeft).toBe(3);
    expect(run.nextPageRequest()).toEqual({ cursor: cursor(4), skip: 0 });
    const first = run.decide(0);
    if (first.kind !== 'start') throw new Error(`expected a start, got ${first.kind}`);
    run.start(first.item, 0);
    expect(run.pageLeft).toBe(2);
    // What continue-as-new carries is where the run stands, not the page read ahead.
    expect(run.toCarried({ runKey: 'r', runDate: '2026-01-01', startedAt: 0, executions: 1 })).toMatchObject({ pageTaken: 1 });
    expect(run.toCarried({ runKey: 'r', runDate: '2026-01-01', startedAt: 0, executions: 1 }).pageCursor).toBeUndefined();
    const ahead = run.nextPageRequest();
    for (let at = 1; at <= 2; at += 1) {
      const decision = run.decide(at * 1000);
      if (decision.kind !== 'start') throw new Error(`expected a start, got ${decision.kind}`);
      run.start(decision.item, at * 1000);
    }
    expect(run.needsPage).toBe(true);
    expect(run.pageRequest()).toEqual(ahead);
    expect(run.nextPageRequest()).toBeUndefined();
    // The input's last page has nothing after it.
    run.loadPage({ items: [item('d', 4)], cursor: cursor(5), done: true });
    expect(run.nextPageRequest()).toBeUndefined();
  });

  it('queues a retry before the page: the page read ahead waits behind it', () => {
    const run = model(10, { concurrency: 5 });
    run.loadPage({ items: [item('a', 0), item('b', 1)], cursor: cursor(2), done: false });
    const first = run.decide(0);
    if (first.kind !== 'start') throw new Error(`expected a start, got ${first.kind}`);
    run.start(first.item, 0);
    run.settle('a', { status: 'failed', costUsd: 0, error: 'busy', failureType: 'ServiceUnavailable' }, 10);
    expect(run.peek()?.key).toBe('a');
    expect(run.nextPageRequest()).toEqual({ cursor: cursor(2), skip: 0 });
    const again = run.decide(2000);
    if (again.kind !== 'start') throw new Error(`expected a start, got ${again.kind}`);
    expect(again.item.key).toBe('a');
    run.start(again.item, 2000);
    expect(run.pageLeft).toBe(1);
  });

  it('reads a page, starts within the window, and asks for the next page when the first is taken', () => {
    const run = model();
    expect(run.needsPage).toBe(true);
    expect(run.pageRequest()).toEqual({ skip: 0 });
    run.loadPage({ items: [item('a', 0), item('b', 1), item('c', 2)], cursor: cursor(3), done: false });
    run.start(run.peek()!, 1_000);
    run.start(run.peek()!, 1_000);
    expect(run.decide(1_000)).toMatchObject({ kind: 'wait', reason: 'window_full' });
    expect(run.ledger.reservedUsd).toBeCloseTo(0.2);
    run.settle('a', { status: 'completed', costUsd: 0.05 }, 2_000);
    expect(run.ledger).toEqual({ budgetUsd: 1, spentUsd: 0.05, reservedUsd: 0.1 });
    expect(run.decide(2_000)).toMatchObject({ kind: 'start', item: { key: 'c' } });
    run.start(run.peek()!, 2_000);
    expect(run.needsPage).toBe(true);
    expect(run.pageRequest()).toEqual({ cursor: cursor(3), skip: 0 });
    expect(run.takePending()).toEqual([expect.objectContaining({ key: 'a', status: 'completed', attempts: 1, costUsd: 0.05 })]);
  });

  it('carries the page cursor and how many of its items were taken, so a continued run skips them', () => {
    const run = model();
    run.loadPage({ items: [item('a', 0), item('b', 1), item('c', 2)], cursor: cursor(3), done: true });
    run.start(run.peek()!, 0);
    run.settle('a', { status: 'completed', costUsd: 0.1 }, 10);
    const carried = run.toCarried({ runKey: 'r', runDate: 'd', startedAt: 0, executions: 2 });
    expect(carried).toMatchObject({ pageTaken: 1, inputDone: false, counts: { read: 1, completed: 1 }, ledger: { budgetUsd: 1, spentUsd: 0.1 } });
    const next = new PipelineRunModel(limits, carried, 20);
    expect(next.pageRequest()).toEqual({ skip: 1 });
    next.loadPage({ items: [item('b', 1), item('c', 2)], cursor: cursor(3), done: true });
    next.start(next.peek()!, 20);
    next.start(next.peek()!, 20);
    expect(next.inputExhausted).toBe(true);
    expect(next.total).toBe(3);
  });

  it('continues as new without waiting for adoptable research tasks, carrying them with their reservations, attempts and waits', () => {
    const run = model(5);
    const research = (key: string, index: number) =>
      item(key, index, { request: { kind: 'deepresearch', request: { query: key } } as PlannedItem['request'], reserveUsd: 1 });
    run.loadPage({ items: [research('a', 0), research('b', 1), item('c', 2)], cursor: cursor(3), done: false });
    run.start(run.peek()!, 0, true);
    run.start(run.peek()!, 0, true);
    run.noteWaiting('a', 'checkpoint');
    run.draining = true;
    // An Answer, Search or Contents call (not adoptable) is waited for; research tasks are not.
    expect(run.drained).toBe(true);
    run.limits.concurrency = 3;
    run.start(run.peek()!, 0);
    expect(run.drained).toBe(false);
    run.settle('c', { status: 'completed', costUsd: 0.1 }, 1_000);
    expect(run.drained).toBe(true);
    const carried = run.toCarried({ runKey: 'r', runDate: 'd', startedAt: 0, executions: 2 }, 4_000);
    expect(carried.inFlight).toEqual([
      { item: expect.objectContaining({ key: 'a' }), attempts: 1, reservedUsd: 1, waiting: 'checkpoint' },
      { item: expect.objectContaining({ key: 'b' }), attempts: 1, reservedUsd: 1 },
    ]);
    // The time with items in flight counts the current stretch too.
    expect(carried.activeMs).toBe(4_000);

    const next = new PipelineRunModel(limits, carried, 5_000);
    expect(next.carriedFlights().map(({ item: { key } }) => key)).toEqual(['a', 'b']);
    expect(next.ledger).toEqual({ budgetUsd: 5, spentUsd: 0.1, reservedUsd: 2 });
    expect(next.counts.running).toBe(2);
    expect(next.toState('r', 2, 5_000).waiting.checkpoint).toEqual(['a']);
    // The window counts carried items: one slot of two is taken until they end.
    next.settle('b', { status: 'completed', costUsd: 0.9 }, 6_000);
    expect(next.ledger).toEqual({ budgetUsd: 5, spentUsd: 1, reservedUsd: 1 });
    expect(next.takePending()).toEqual([expect.objectContaining({ key: 'b', status: 'completed', attempts: 1, costUsd: 0.9 })]);
    expect(next.carriedFlights().map(({ item: { key } }) => key)).toEqual(['a']);
  });

  it('refuses malformed reports of adopted items', () => {
    expect(itemSettledProblem({ item: 'a', workflowId: 'w', status: 'completed', result: {} })).toBeUndefined();
    expect(itemSettledProblem({ item: 'a', workflowId: 'w', status: 'failed', error: 'x' })).toBeUndefined();
    expect(itemSettledProblem('nope')).toMatch(/payload must be/);
    expect(itemSettledProblem({ item: '', workflowId: 'w', status: 'failed' })).toMatch(/^item:/);
    expect(itemSettledProblem({ item: 'a', status: 'failed' })).toMatch(/^workflowId:/);
    expect(itemSettledProblem({ item: 'a', workflowId: 'w', status: 'done' })).toMatch(/^status:/);
    expect(itemSettledProblem({ item: 'a', workflowId: 'w', status: 'completed' })).toMatch(/^result:/);
  });

  it("counts a failed attempt that may have been charged in the item's record when a retry completes it", () => {
    const run = model();
    run.loadPage({ items: [item('a', 0)], cursor: cursor(1), done: true });
    run.start(run.peek()!, 0);
    run.settle('a', { status: 'failed', costUsd: 0.1, error: 'answer lost after it was sent', failureType: 'ResearchPossiblyCharged' }, 1);
    expect(run.ledger.spentUsd).toBeCloseTo(0.1, 6);
    run.start(run.peek()!, 2);
    run.settle('a', { status: 'completed', costUsd: 0.07 }, 3);
    expect(run.takePending()).toEqual([expect.objectContaining({ key: 'a', status: 'completed', attempts: 2, costUsd: 0.17, possiblyChargedUsd: 0.1 })]);
    expect(run.ledger).toEqual({ budgetUsd: 1, spentUsd: 0.17, reservedUsd: 0 });
  });

  it('retries a failed item with a fresh reservation, then records it failed with its attempts', () => {
    const run = model();
    run.loadPage({ items: [item('a', 0)], cursor: cursor(1), done: true });
    run.start(run.peek()!, 0);
    run.settle('a', { status: 'failed', costUsd: 0, error: 'boom', failureType: 'ResearchTaskFailed' }, 1);
    expect(run.peek()).toMatchObject({ key: 'a', attempts: 1 });
    expect(run.counts.failed).toBe(0);
    expect(run.start(run.peek()!, 2)).toBe(2);
    run.settle('a', { status: 'failed', costUsd: 0.1, error: 'boom again' }, 3);
    expect(run.counts).toMatchObject({ failed: 1, read: 1 });
    expect(run.failures).toEqual([{ key: 'a', error: 'boom again', attempts: 2 }]);
    expect(run.ledger).toEqual({ budgetUsd: 1, spentUsd: 0.1, reservedUsd: 0 });
  });

  it('puts an item refused for credits back first without using an attempt, and waits for resume', () => {
    const run = model();
    run.loadPage({ items: [item('a', 0), item('b', 1)], cursor: cursor(2), done: true });
    run.start(run.peek()!, 0);
    run.settle('a', { status: 'credits_exhausted' }, 1);
    expect(run.creditsExhausted).toBe(true);
    expect(run.peek()).toMatchObject({ key: 'a', attempts: 0 });
    expect(run.decide(1)).toMatchObject({ reason: 'credits_exhausted' });
    run.showWait(run.decide(1));
    expect(run.phase).toBe('credits_exhausted');
  });

  it('fails the run after an item fails when on_item_failure is fail_run, and stops starting', () => {
    const run = model(1, { failRunOnItemFailure: true, retries: 0 });
    run.loadPage({ items: [item('a', 0), item('b', 1)], cursor: cursor(2), done: true });
    run.start(run.peek()!, 0);
    run.settle('a', { status: 'failed', costUsd: 0, error: 'no' }, 1);
    expect(run.fatal).toBe('item "a" failed after 1 attempt(s) and on_item_failure is fail_run: no');
    expect(run.decide(2)).toMatchObject({ reason: 'stopping' });
    run.markUnstarted();
    expect(run.counts.skipped).toBe(1);
  });

  it('records unrunnable items failed without spending, and counts items an earlier execution finished', () => {
    const run = model();
    run.loadPage({
      items: [item('a', 0, { done: { status: 'completed', costUsd: 0.1 } }), item('b', 1, { request: undefined, problem: 'bad key' })],
      cursor: cursor(2),
      done: true,
    });
    const first = run.decide(0);
    expect(first.kind).toBe('reuse');
    if (first.kind === 'reuse') run.reuse(first.item);
    const second = run.decide(0);
    if (second.kind === 'refuse') run.refuse(second.item, 0);
    expect(run.counts).toMatchObject({ reused: 1, failed: 1, read: 2 });
    expect(run.takePending()).toEqual([expect.objectContaining({ key: 'b', status: 'failed', attempts: 0, costUsd: 0, error: 'bad key' })]);
    expect(run.inputExhausted).toBe(true);
  });
});

describe('progress', () => {
  const counts = { read: 40, completed: 8, failed: 2, cancelled: 0, reused: 0, skipped: 0, running: 2 };

  it('estimates time left from the items this run finished and the time it had items in flight', () => {
    expect(estimateTimeLeft({ counts, total: 100, activeMs: 60_000 })).toEqual({ itemsPerMinute: 10, etaMs: 540_000 });
    expect(estimateTimeLeft({ counts, activeMs: 60_000 })).toEqual({ itemsPerMinute: 10 });
    expect(estimateTimeLeft({ counts: { ...counts, completed: 0, failed: 0 }, total: 100, activeMs: 60_000 })).toEqual({});
    // A finished run has no estimate, rather than "about 0s left".
    expect(estimateTimeLeft({ counts, total: 10, activeMs: 60_000 })).toEqual({ itemsPerMinute: 10 });
    expect(estimateTimeLeft({ counts, total: 100, activeMs: 60_000, phase: 'cancelled' })).toEqual({ itemsPerMinute: 10 });
    // Nobody can say when people answer: no estimate while every item in flight waits for one.
    expect(estimateTimeLeft({ counts, total: 100, activeMs: 60_000, blockedOnPeople: true })).toEqual({ itemsPerMinute: 10 });
  });

  it('says how many answers a run waits for and how long the oldest has waited', () => {
    expect(peopleWaitText('checkpoint', 3, 2 * 3_600_000)).toBe('waiting for 3 answers, oldest 2h 0m');
    expect(peopleWaitText('checkpoint', 1)).toBe('waiting for 1 answer');
    expect(peopleWaitText('operator', 2, 90_000)).toBe('waiting for an operator (2 items), oldest 1m 30s');
  });

  it('says the estimate leaves out the items waiting for a person', () => {
    const details = runDetails({
      phase: 'running',
      counts,
      total: 100,
      ledger: { budgetUsd: 5, spentUsd: 1, reservedUsd: 0.2 },
      etaMs: 540_000,
      waiting: { checkpoint: 2, operator: 1 },
    });
    expect(details).toContain('about 9m 0s left, not counting the 3 item(s) waiting for a person');
  });

  it('describes the run for the Temporal UI', () => {
    const details = runDetails({
      phase: 'running',
      counts,
      total: 100,
      ledger: { budgetUsd: 5, spentUsd: 1, reservedUsd: 0.2 },
      etaMs: 540_000,
      detail: 'why',
    });
    expect(details).toBe(
      '**running** · 10 of 100 settled\n\n8 completed · 2 failed · 2 running\n\nspent 1.00 USD + 0.20 USD reserved of 5.00 USD\n\nabout 9m 0s left\n\nwhy',
    );
  });

  it('checks pause and resume payloads', () => {
    expect(operatorSignalProblem(undefined)).toBeUndefined();
    expect(operatorSignalProblem({ reason: 'lunch' })).toBeUndefined();
    expect(operatorSignalProblem({ reason: 3 })).toBe('reason: must be text');
    expect(operatorSignalProblem('stop')).toBe('payload must be nothing or {reason: "text"}');
    expect(operatorSignalProblem({ why: 'x' })).toBe('unknown field "why" (allowed: reason)');
  });
});

describe('items waiting for a person', () => {
  it('lists in-flight items by what they wait for, forgets them once answered or settled, and says so in the details', () => {
    const run = model();
    run.loadPage({ items: [item('a', 0), item('b', 1)], cursor: cursor(2), done: true });
    run.start(run.peek()!, 0);
    run.start(run.peek()!, 0);
    run.noteWaiting('b', 'checkpoint', 0);
    run.noteWaiting('a', 'operator', 0);
    run.noteWaiting('ghost', 'checkpoint', 0);
    expect(run.toState('r', 1, 0).waiting).toEqual({ checkpoint: ['b'], operator: ['a'] });
    expect(run.details(0)).toContain('waiting for 1 answer (at a checkpoint)');
    expect(run.details(0)).toContain('waiting for an operator (1 item)');
    // The longest wait shows in the details and the state; no estimate while everything waits for people.
    expect(run.details(7_200_000)).toContain('waiting for 1 answer, oldest 2h 0m (at a checkpoint)');
    expect(run.toState('r', 1, 7_200_000).waitingLongestMs).toEqual({ checkpoint: 7_200_000, operator: 7_200_000 });
    expect(run.toState('r', 1, 7_200_000).etaMs).toBeUndefined();
    run.noteWaiting('b', null);
    run.settle('a', { status: 'completed', costUsd: 0.1 }, 10);
    expect(run.toState('r', 1, 10).waiting).toEqual({ checkpoint: [], operator: [] });
    expect(run.details(10)).not.toContain('waiting');
  });

  it('refuses a malformed notice, naming the field', () => {
    expect(itemWaitingProblem({ item: 'a', waiting: 'checkpoint' })).toBeUndefined();
    expect(itemWaitingProblem({ item: 'a', waiting: null })).toBeUndefined();
    expect(itemWaitingProblem(undefined)).toBe('payload must be {item, waiting}');
    expect(itemWaitingProblem({ item: '', waiting: null })).toBe('item: must be the item key');
    expect(itemWaitingProblem({ item: 'a', waiting: 'lunch' })).toBe('waiting: must be "checkpoint", "operator" or null');
  });
});
