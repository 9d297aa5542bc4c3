import { availableUsd, fitsBudget, raiseBudget, reserve, reserveFor, settle } from '../../src/domain/budget';
import { budgetRaiseProblem } from '../../src/workflows/message-checks';
import { decideNext, msUntilToken, pageSizeFor, readAheadDue, refill, shouldRetry, type WindowView } from '../../src/workflows/pipeline-window';
import type { PlannedItem } from '../../src/domain/pipeline-types';

const item = (key: string, extra: Partial<PlannedItem> = {}): PlannedItem => ({
  key,
  index: 0,
  where: 'item 1',
  reserveUsd: 0.1,
  request: { kind: 'search', request: { query: key } },
  ...extra,
});
const view = (extra: Partial<WindowView> = {}): WindowView => ({
  running: 0,
  concurrency: 2,
  paused: false,
  creditsExhausted: false,
  stopping: false,
  next: item('a'),
  ledger: { budgetUsd: 1, spentUsd: 0, reservedUsd: 0 },
  bucket: { tokens: 1, updatedAt: 0 },
  ratePerSecond: 1,
  ...extra,
});

describe('the budget ledger', () => {
  it('reserves before a start and never lets spent plus reserved pass the budget', () => {
    let ledger = { budgetUsd: 0.3, spentUsd: 0, reservedUsd: 0 };
    expect(fitsBudget(ledger, 0.1)).toBe(true);
    ledger = reserve(reserve(reserve(ledger, 0.1), 0.1), 0.1);
    expect(ledger.reservedUsd).toBe(0.3);
    expect(fitsBudget(ledger, 0.000001)).toBe(false);
    expect(availableUsd(ledger)).toBe(0);
  });

  it('settles an item: releases its reservation and spends what it really cost, without float drift', () => {
    let ledger = { budgetUsd: 1, spentUsd: 0, reservedUsd: 0 };
    for (let index = 0; index < 10; index++) ledger = settle(reserve(ledger, 0.1), 0.1, 0.1);
    expect(ledger).toEqual({ budgetUsd: 1, spentUsd: 1, reservedUsd: 0 });
    expect(settle(reserve(ledger, 0.5), 0.5, 0.2)).toEqual({ budgetUsd: 1, spentUsd: 1.2, reservedUsd: 0 });
  });

  it('raises by a new total or an amount, and refuses lowering, zero, negatives and unknown shapes', () => {
    const ledger = { budgetUsd: 2, spentUsd: 1, reservedUsd: 0.5 };
    expect(raiseBudget(ledger, { addUsd: 0.5 }).budgetUsd).toBe(2.5);
    expect(raiseBudget(ledger, { budgetUsd: 10 }).budgetUsd).toBe(10);
    expect(budgetRaiseProblem(ledger, { budgetUsd: 10 })).toBeUndefined();
    expect(budgetRaiseProblem(ledger, { budgetUsd: 2 })).toBe('budgetUsd: must be more than the current budget of 2 USD (a budget can only be raised)');
    expect(budgetRaiseProblem(ledger, { addUsd: 0 })).toBe('addUsd: must be a number more than 0');
    expect(budgetRaiseProblem(ledger, { addUsd: '5' })).toBe('addUsd: must be a number more than 0');
    expect(budgetRaiseProblem(ledger, { addUsd: 1, budgetUsd: 5 })).toBe('give exactly one of budgetUsd (the new total) or addUsd (an amount to add)');
    expect(budgetRaiseProblem(ledger, 5)).toBe('give {budgetUsd: <new total>} or {addUsd: <amount>}');
  });
});

describe('the sliding window', () => {
  it('starts the next item when the window, rate and budget allow', () => {
    expect(decideNext(view())).toEqual({ kind: 'start', item: item('a') });
  });

  it('passes items an earlier execution finished, and refuses items that cannot run, even while paused', () => {
    const done = item('a', { done: { status: 'completed', costUsd: 0.1 } });
    expect(decideNext(view({ next: done, paused: true }))).toEqual({ kind: 'reuse', item: done });
    const bad = item('b', { request: undefined, problem: 'missing variable' });
    expect(decideNext(view({ next: bad, paused: true }))).toEqual({ kind: 'refuse', item: bad });
  });

  it('holds starts while stopping, paused, out of credits or full, in that order', () => {
    expect(decideNext(view({ stopping: true, paused: true }))).toMatchObject({ reason: 'stopping' });
    expect(decideNext(view({ paused: true, creditsExhausted: true }))).toMatchObject({ reason: 'paused' });
    expect(decideNext(view({ creditsExhausted: true }))).toMatchObject({ reason: 'credits_exhausted' });
    expect(decideNext(view({ running: 2 }))).toMatchObject({ reason: 'window_full' });
    expect(decideNext(view({ next: undefined }))).toEqual({ kind: 'wait', reason: 'no_items' });
  });

  it('waits for the start rate with a delay to the next token', () => {
    expect(decideNext(view({ bucket: { tokens: 0.25, updatedAt: 0 }, ratePerSecond: 2 }))).toEqual({ kind: 'wait', reason: 'rate', delayMs: 375 });
  });

  it('waits for in-flight items when the budget is short, and for an operator when nothing is in flight', () => {
    const ledger = { budgetUsd: 0.25, spentUsd: 0.1, reservedUsd: 0.1 };
    expect(decideNext(view({ ledger, running: 1 }))).toEqual({ kind: 'wait', reason: 'budget' });
    expect(decideNext(view({ ledger: { ...ledger, reservedUsd: 0, spentUsd: 0.2 } }))).toEqual({ kind: 'wait', reason: 'budget_blocked' });
  });
});

describe('start rate, pages, continue-as-new and retries', () => {
  it('refills the bucket at the rate, saving at most one second of starts', () => {
    expect(refill({ tokens: 0, updatedAt: 0 }, 4, 500)).toEqual({ tokens: 2, updatedAt: 500 });
    expect(refill({ tokens: 0, updatedAt: 0 }, 4, 60_000).tokens).toBe(4);
    expect(refill({ tokens: 0, updatedAt: 0 }, 0.5, 60_000).tokens).toBe(1);
    expect(msUntilToken({ tokens: 0, updatedAt: 0 }, 0.5)).toBe(2000);
  });

  it('reads pages of twice the window, from 20 to 200 items', () => {
    expect(pageSizeFor(3)).toBe(20);
    expect(pageSizeFor(50)).toBe(100);
    expect(pageSizeFor(500)).toBe(200);
    expect(pageSizeFor(5, 7)).toBe(7);
  });

  it('reads the next page ahead once the current one holds no more than the window or half a page', () => {
    const view = { left: 100, morePages: true, reading: false, stopping: false, concurrency: 100, pageSize: 200 };
    // A window of 100 over pages of 200: the read starts when 100 items are left, not at the boundary.
    expect(readAheadDue({ ...view, left: 101 })).toBe(false);
    expect(readAheadDue(view)).toBe(true);
    expect(readAheadDue({ ...view, left: 1 })).toBe(true);
    // A small window still reads at half the page; a window larger than the page reads as soon as a page is taken.
    expect(readAheadDue({ ...view, concurrency: 4, pageSize: 20, left: 11 })).toBe(false);
    expect(readAheadDue({ ...view, concurrency: 4, pageSize: 20, left: 10 })).toBe(true);
    expect(readAheadDue({ ...view, concurrency: 4, pageSize: 7, left: 4 })).toBe(true);
    expect(readAheadDue({ ...view, concurrency: 500, pageSize: 200, left: 200 })).toBe(true);
  });

  it('never reads ahead past the last page, twice at once, for a used-up page, or while the run stops starting', () => {
    const view = { left: 10, morePages: true, reading: false, stopping: false, concurrency: 100, pageSize: 200 };
    expect(readAheadDue(view)).toBe(true);
    expect(readAheadDue({ ...view, morePages: false })).toBe(false);
    expect(readAheadDue({ ...view, reading: true })).toBe(false);
    expect(readAheadDue({ ...view, left: 0 })).toBe(false);
    expect(readAheadDue({ ...view, stopping: true })).toBe(false);
  });

  it('retries while attempts are left, never a request the service refused as invalid', () => {
    expect(shouldRetry(1, 2, 'ResearchTaskFailed')).toBe(true);
    expect(shouldRetry(3, 2, 'ResearchTaskFailed')).toBe(false);
    expect(shouldRetry(1, 2, 'ResearchInvalidRequest')).toBe(false);
    expect(shouldRetry(1, 0, undefined)).toBe(false);
  });
});

describe('items whose price the service does not bound', () => {
  const uncapped = (reserveUsd = 0): PlannedItem => ({ ...item('u'), reserveUsd, priceUnbounded: true });

  it('start one at a time until one has ended and shown what such an item costs', () => {
    expect(decideNext(view({ next: uncapped(), running: 1 }))).toEqual({ kind: 'wait', reason: 'price_probe' });
    expect(decideNext(view({ next: uncapped(), running: 0 }))).toMatchObject({ kind: 'start' });
    expect(decideNext(view({ next: uncapped(), running: 3, concurrency: 5, observedMaxUsd: 0.02 }))).toMatchObject({ kind: 'start' });
  });

  it('reserve twice the dearest seen (never less than their own floor); bounded items reserve their price', () => {
    expect(reserveFor(uncapped(), undefined)).toBe(0);
    expect(reserveFor(uncapped(), 0.013)).toBe(0.026);
    expect(reserveFor(uncapped(0.05), 0.013)).toBe(0.05);
    expect(reserveFor({ ...item('b'), reserveUsd: 0.1 }, 0.9)).toBe(0.1);
  });

  it('wait for the budget by that reservation', () => {
    const ledger = { budgetUsd: 0.05, spentUsd: 0.03, reservedUsd: 0 };
    expect(decideNext(view({ next: uncapped(), observedMaxUsd: 0.011, ledger }))).toMatchObject({ kind: 'wait', reason: 'budget_blocked' });
    expect(decideNext(view({ next: uncapped(), observedMaxUsd: 0.009, ledger }))).toMatchObject({ kind: 'start' });
  });
});
