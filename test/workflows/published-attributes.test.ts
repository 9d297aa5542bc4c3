import { liveUpsertDue, pairsToUpsert } from '../../src/workflows/published-attributes';
import { DeepResearchIdKey, ResearchCostUsdKey, ResearchStatusKey } from '../../src/workflows/search-attributes';

const status = (value: string) => ({ key: ResearchStatusKey, value });
const cost = (value: number) => ({ key: ResearchCostUsdKey, value });
const id = (value: string) => ({ key: DeepResearchIdKey, value });
const published = (entries: Array<[string, unknown]>) => new Map<string, unknown>(entries);

describe('which search attributes a workflow upserts', () => {
  it('upserts only the pairs whose value changed since the last upsert', () => {
    const last = published([
      ['ResearchStatus', 'running'],
      ['ResearchCostUsd', 1],
    ]);
    expect(pairsToUpsert(last, [status('running'), cost(2)], { kind: 'changed' })).toEqual([cost(2)]);
    expect(pairsToUpsert(last, [status('running'), cost(1)], { kind: 'changed' })).toEqual([]);
  });

  it('upserts every pair (the others ride along) when a key it is keyed on changed, and nothing otherwise', () => {
    const rule = { kind: 'when', keys: ['ResearchStatus', 'ResearchCostUsd'] } as const;
    const last = published([
      ['ResearchStatus', 'running'],
      ['ResearchCostUsd', 1],
      ['DeepResearchId', 'a'],
    ]);
    expect(pairsToUpsert(last, [status('completed'), cost(1), id('a')], rule)).toEqual([status('completed'), cost(1), id('a')]);
    // A change of a key it is not keyed on waits for the next change that counts.
    expect(pairsToUpsert(last, [status('running'), cost(1), id('b')], rule)).toEqual([]);
  });

  it('counts a key left out of the pairs as unset, so its first value is a change', () => {
    const rule = { kind: 'when', keys: ['ResearchStatus', 'ResearchCostUsd'] } as const;
    const last = published([
      ['ResearchStatus', 'running'],
      ['ResearchCostUsd', undefined],
    ]);
    expect(pairsToUpsert(last, [status('running')], rule)).toEqual([]);
    expect(pairsToUpsert(last, [status('running'), cost(0.5)], rule)).toEqual([status('running'), cost(0.5)]);
  });

  it('upserts everything, even nothing, when told to always', () => {
    expect(pairsToUpsert(published([['ResearchStatus', 'running']]), [status('running')], { kind: 'always' })).toEqual([status('running')]);
    expect(pairsToUpsert(published([]), [], { kind: 'always' })).toEqual([]);
  });
});

describe('liveUpsertDue: money and progress shown as they move, bounded', () => {
  const bound = { minIntervalMs: 30_000, everyItems: 25 };
  it('shows the first value at once', () => {
    expect(liveUpsertDue(undefined, { at: 0, settled: 0, value: 0 }, bound)).toBe(true);
  });
  it('shows nothing when the value has not moved, however long it has been', () => {
    expect(liveUpsertDue({ at: 0, settled: 0, value: 1.5 }, { at: 3_600_000, settled: 100, value: 1.5 }, bound)).toBe(false);
  });
  it('holds a moved value until the interval has passed', () => {
    const last = { at: 0, settled: 0, value: 1 };
    expect(liveUpsertDue(last, { at: 29_999, settled: 3, value: 1.2 }, bound)).toBe(false);
    expect(liveUpsertDue(last, { at: 30_000, settled: 3, value: 1.2 }, bound)).toBe(true);
  });
  it('shows a moved value sooner once enough items settled', () => {
    expect(liveUpsertDue({ at: 0, settled: 10, value: 1 }, { at: 1_000, settled: 35, value: 4 }, bound)).toBe(true);
    expect(liveUpsertDue({ at: 0, settled: 10, value: 1 }, { at: 1_000, settled: 34, value: 4 }, bound)).toBe(false);
  });
  it('writes at most one event per interval on a long slow run', () => {
    let last: { at: number; settled: number; value: unknown } | undefined;
    let upserts = 0;
    // One item settles every 2 s for an hour, each adding money: 1,800 changes.
    for (let second = 0, settled = 0; second < 3_600; second += 2, settled++) {
      const now = { at: second * 1000, settled, value: settled * 0.1 };
      if (liveUpsertDue(last, now, { minIntervalMs: 30_000, everyItems: 1_000 })) {
        upserts++;
        last = now;
      }
    }
    expect(upserts).toBe(120);
  });
});
