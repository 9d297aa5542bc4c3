import { ROWS_LAG_MS, rowsDue } from '../../src/workflows/sink-rows';

describe('rowsDue: when a run with SQL sinks writes fewer records than a chunk', () => {
  const now = 1_000_000;

  it('writes nothing when nothing waits', () => {
    expect(rowsDue({ pending: 0, wait: 'budget_blocked', now })).toBe(false);
  });

  it('writes what settled when the run holds until an operator acts (pause, 402, a budget nothing in flight can free)', () => {
    for (const wait of ['paused', 'credits_exhausted', 'budget_blocked'] as const) expect(rowsDue({ pending: 2, oldestEndedAt: now, wait, now })).toBe(true);
  });

  it('otherwise lets records gather into a chunk, until the oldest has waited ROWS_LAG_MS', () => {
    for (const wait of ['window_full', 'rate', 'budget', 'no_items', 'price_probe'] as const)
      expect(rowsDue({ pending: 3, oldestEndedAt: now - ROWS_LAG_MS + 1, wait, now })).toBe(false);
    expect(rowsDue({ pending: 3, oldestEndedAt: now - ROWS_LAG_MS + 1, now })).toBe(false);
    expect(rowsDue({ pending: 1, oldestEndedAt: now - ROWS_LAG_MS, wait: 'window_full', now })).toBe(true);
    expect(rowsDue({ pending: 1, oldestEndedAt: now - ROWS_LAG_MS, now })).toBe(true);
  });
});
