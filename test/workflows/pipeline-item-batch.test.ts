import type { PlannedItem } from '../../src/domain/pipeline-types';
import { BatchGroup, batchableKind, itemBatchSize, MAX_BATCH_ITEMS, MAX_BATCH_REQUEST_BYTES } from '../../src/workflows/pipeline-item-batch';

const item = (key: string, kind: string, extra: Partial<PlannedItem> = {}): PlannedItem =>
  ({ key, index: 0, reserveUsd: 0.01, request: { kind, request: { query: key } }, ...extra }) as unknown as PlannedItem;

describe('which items share one activity', () => {
  it('batches Answer, Search and Contents items only; research tasks and steps items run on their own', () => {
    expect(batchableKind(item('a', 'search'))).toBe('search');
    expect(batchableKind(item('a', 'answer'))).toBe('answer');
    expect(batchableKind(item('a', 'contents'))).toBe('contents');
    expect(batchableKind(item('a', 'deepresearch'))).toBeUndefined();
    expect(batchableKind(item('a', 'workflow'))).toBeUndefined();
    expect(batchableKind(item('a', 'search', { stepwise: { value: {}, reserves: [0.01] } }))).toBeUndefined();
  });

  it('takes at most a quarter of the window, so places freed by one batch are filled while others run', () => {
    expect(itemBatchSize({ concurrency: 50, ratePerSecond: 1000, kind: 'search' })).toBe(12);
    expect(itemBatchSize({ concurrency: 100, ratePerSecond: 1000, kind: 'search' })).toBe(25);
    expect(itemBatchSize({ concurrency: 7, ratePerSecond: 1000, kind: 'search' })).toBe(1);
  });

  it("takes at most a quarter-second of the start rate, so a rate-limited run's batches do not bunch its starts", () => {
    expect(itemBatchSize({ concurrency: 100, ratePerSecond: 10, kind: 'search' })).toBe(2);
    expect(itemBatchSize({ concurrency: 100, ratePerSecond: 1, kind: 'search' })).toBe(1);
  });

  it("caps each kind: Answer calls, whose time varies most, share less (a batch reports at its slowest call's end)", () => {
    expect(itemBatchSize({ concurrency: 500, ratePerSecond: 1000, kind: 'search' })).toBe(MAX_BATCH_ITEMS.search);
    expect(itemBatchSize({ concurrency: 500, ratePerSecond: 1000, kind: 'answer' })).toBe(MAX_BATCH_ITEMS.answer);
    expect(MAX_BATCH_ITEMS.answer).toBeLessThan(MAX_BATCH_ITEMS.search);
    expect(itemBatchSize({ concurrency: 500, ratePerSecond: 1000, kind: undefined })).toBe(1);
  });

  it('fills a group up to its size, one kind only, and within the request byte budget', () => {
    const group = new BatchGroup('search', 3);
    expect(group.add(item('a', 'search'), 100)).toBe(true);
    expect(group.add(item('b', 'answer'), 100)).toBe(false);
    expect(group.add(item('c', 'search'), 100)).toBe(true);
    expect(group.full).toBe(false);
    expect(group.add(item('d', 'search'), 100)).toBe(true);
    expect(group.full).toBe(true);
    expect(group.add(item('e', 'search'), 100)).toBe(false);
    expect(group.items.map(({ key }) => key)).toEqual(['a', 'c', 'd']);

    const large = new BatchGroup('answer', 5);
    expect(large.add(item('a', 'answer'), MAX_BATCH_REQUEST_BYTES - 10)).toBe(true);
    expect(large.add(item('b', 'answer'), 100)).toBe(false);
    // An item larger than the budget still goes, alone.
    const huge = new BatchGroup('answer', 5);
    expect(huge.add(item('a', 'answer'), MAX_BATCH_REQUEST_BYTES * 2)).toBe(true);
    expect(huge.full).toBe(true);
  });
});
