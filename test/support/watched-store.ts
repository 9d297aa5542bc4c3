import type { ArtifactStore } from '../../src/activities';
import { itemRecordKey, itemResultKey } from '../../src/activities/pipeline-items';

/** `count` completed Answer items of a run (keys co-000, co-001…), each with its result and its record as a batch writes them; their keys. */
export async function storeCompletedItems(store: ArtifactStore, prefix: string, count: number): Promise<string[]> {
  const keys = Array.from({ length: count }, (_, index) => `co-${String(index).padStart(3, '0')}`);
  for (const [index, key] of keys.entries()) {
    const body = { key, kind: 'answer', output: { headcount: index }, costUsd: 0.01 };
    const result = await store.put(itemResultKey(prefix, key), JSON.stringify(body), 'application/json');
    await store.put(itemRecordKey(prefix, key), JSON.stringify({ key, index, status: 'completed', attempts: 1, costUsd: 0.01, result }), 'application/json');
  }
  return keys;
}

/**
 * `inner`, watched: how many times each key was read, how many artifacts were described (by `stat`, or
 * in a `list`'s answer), and the most item records (`…/items/…`) read at once; each record read waits a
 * millisecond, so reads made together overlap.
 */
export function watchedStore(inner: ArtifactStore) {
  const reads = new Map<string, number>();
  const counts = { described: 0, recordReads: 0, mostRecordReadsAtOnce: 0 };
  let running = 0;
  const store: ArtifactStore = {
    put: (key, data, contentType) => inner.put(key, data, contentType),
    get: async (key) => {
      reads.set(key, (reads.get(key) ?? 0) + 1);
      if (!key.includes('/items/')) return inner.get(key);
      counts.recordReads += 1;
      counts.mostRecordReadsAtOnce = Math.max(counts.mostRecordReadsAtOnce, ++running);
      try {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return await inner.get(key);
      } finally {
        running -= 1;
      }
    },
    stat: (key) => (counts.described++, inner.stat(key)),
    list: async (prefix) => {
      const refs = await inner.list(prefix);
      counts.described += refs.length;
      return refs;
    },
    keys: (prefix) => inner.keys(prefix),
  };
  return { store, reads, counts };
}
