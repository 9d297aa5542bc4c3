import { keyItems } from './item-keys';
import { readCsvPage } from './read-csv';
import { readJsonlPage } from './read-jsonl';
import type { ItemCursor, ItemPage, ItemSource, KeyedItem, RunContext, SourceItem } from './types';

/** Largest page an activity reads at once: its result goes into workflow history. */
export const MAX_PAGE_SIZE = 1000;

/**
 * Reads the page of items that starts at `cursor` (the first page when absent): at most `limit` items,
 * streamed from files, never the whole file. Returns the items, the next cursor and whether any are left.
 */
export async function readItems(source: ItemSource, options: { cursor?: ItemCursor; limit: number }): Promise<ItemPage> {
  const cursor = options.cursor ?? { index: 0, byteOffset: 0, line: 0 };
  const limit = Math.max(1, Math.min(options.limit, MAX_PAGE_SIZE));
  switch (source.kind) {
    case 'csv':
      return readCsvPage(source.path, cursor, limit, source.delimiter);
    case 'jsonl':
      return readJsonlPage(source.path, cursor, limit);
    case 'single':
    case 'inline': {
      const all = source.kind === 'single' ? [{}] : source.items;
      const end = Math.min(all.length, cursor.index + limit);
      const items = all.slice(cursor.index, end).map((value, offset) => ({ index: cursor.index + offset, where: `item ${cursor.index + offset + 1}`, value }));
      return { items, cursor: { ...cursor, index: end }, done: end >= all.length, bytesRead: 0 };
    }
  }
}

/**
 * `readItems` plus keys: each item's `input.key` rendered and checked (safe for workflow ids, unique
 * within the page and against `seen`, the keys of earlier pages when the caller keeps them).
 */
export async function readKeyedItems(
  source: ItemSource,
  keyTemplate: string | undefined,
  context: Pick<RunContext, 'params'>,
  options: { cursor?: ItemCursor; limit: number; seen?: Map<string, string>; keep?: (item: SourceItem) => boolean },
): Promise<ItemPage<KeyedItem> & { filtered: number }> {
  const page = await readItems(source, options);
  // Rows a filter leaves out (`input.where:`) are never keyed: their keys cannot clash or fail.
  const kept = options.keep ? page.items.filter(options.keep) : page.items;
  return {
    ...page,
    items: keyItems(kept, source.kind === 'single' ? undefined : keyTemplate, context, options.seen),
    filtered: page.items.length - kept.length,
  };
}
