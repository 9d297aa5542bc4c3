import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertSearchAttributes } from '@temporalio/workflow';

/** When a workflow's search attributes are upserted: each upsert is one history event. */
export type UpsertRule =
  /** The pairs whose value differs from the one last upserted. */
  | { kind: 'changed' }
  /** Every pair, when one of the `keys` (by name) differs from the value last upserted; a key left out of the pairs counts as unset. */
  | { kind: 'when'; keys: readonly string[] }
  /** Every pair, every time (an empty list too: it is still one upsert in history). */
  | { kind: 'always' };

/** The pairs to upsert under `rule`, given the values last upserted (by attribute name). */
export function pairsToUpsert(
  published: ReadonlyMap<string, unknown>,
  pairs: readonly SearchAttributeUpdatePair[],
  rule: UpsertRule,
): SearchAttributeUpdatePair[] {
  if (rule.kind === 'always') return [...pairs];
  if (rule.kind === 'changed') return pairs.filter(({ key, value }) => published.get(key.name) !== value);
  const current = (name: string): unknown => pairs.find(({ key }) => key.name === name)?.value;
  return rule.keys.some((name) => published.get(name) !== current(name)) ? [...pairs] : [];
}

/**
 * A workflow's search attributes as operators filter on them, upserted by a rule (`UpsertRule`) so that a
 * workflow that shows its state often writes one event per change rather than one per publish.
 */
export class PublishedAttributes {
  readonly #published = new Map<string, unknown>();

  /** Upserts what `rule` says of `pairs`; returns whether anything was upserted. */
  upsert(pairs: readonly SearchAttributeUpdatePair[], rule: UpsertRule = { kind: 'always' }): boolean {
    const upserted = pairsToUpsert(this.#published, pairs, rule);
    if (upserted.length === 0 && rule.kind !== 'always') return false;
    upsertSearchAttributes(upserted);
    for (const { key, value } of upserted) this.#published.set(key.name, value);
    if (rule.kind === 'when') for (const name of rule.keys) if (!upserted.some(({ key }) => key.name === name)) this.#published.set(name, undefined);
    return true;
  }
}

/** How often a value that moves while a workflow works (money spent, items settled) may be upserted: each upsert is one history event. */
export interface LiveBound {
  /** At most one upsert this often while the value moves... */
  minIntervalMs: number;
  /** ...unless this many items settled since the last one. */
  everyItems: number;
}

/** Money and progress shown at most every 30 s, or every 25 items on a fast run: a 10,000-item run writes some hundreds of events, not 10,000. */
export const LIVE_BOUND: LiveBound = { minIntervalMs: 30_000, everyItems: 25 };

/** A live value as last upserted, or as it stands now. */
export interface LiveMark {
  at: number;
  settled: number;
  value: unknown;
}

/**
 * Whether a live value is upserted now: it moved since `last`, and the bound allows (time passed, or
 * items settled). The first value is always shown.
 */
export function liveUpsertDue(last: LiveMark | undefined, now: LiveMark, bound: LiveBound = LIVE_BOUND): boolean {
  if (last === undefined) return true;
  if (last.value === now.value) return false;
  return now.at - last.at >= bound.minIntervalMs || now.settled - last.settled >= bound.everyItems;
}
