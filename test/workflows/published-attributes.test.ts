import { pairsToUpsert } from '../../src/workflows/published-attributes';
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
