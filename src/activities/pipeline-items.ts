import { InputError } from '../pipelines/input-file';
import { ItemError, itemKey, SINGLE_ITEM_KEY } from '../pipelines/item-keys';
import { readItems } from '../pipelines/read-items';
import type { ItemCursor, ItemSource, PipelineDefinition, RunContext, SourceItem } from '../pipelines/types';
import type { PipelineItemRecord, RunParams } from '../domain/pipeline-types';
import type { ActivityDeps } from './deps';
import { ArtifactNotFoundError, type ArtifactStore } from './store';
import { checkedKeyPrefix, invalidInput } from './errors';

// What every pipeline activity shares about a run: who it is, how its input is read and keyed, and
// where its items' records and results live.

/** Where a run's item record lives. */
export const itemRecordKey = (prefix: string, key: string): string => `${prefix}/items/${key}.json`;
/** Where an Answer, Search or Contents item's result lives. */
export const itemResultKey = (prefix: string, key: string): string => `${prefix}/results/${key}.json`;

/** What identifies a run to the activities that render its items. */
export interface PipelineRunRef {
  definition: PipelineDefinition;
  source: ItemSource;
  params: RunParams;
  runKey: string;
  runDate: string;
  /** The run's store folder (`pipelineRunPrefix`). */
  prefix: string;
}

/** `recordPipelineItems` input. */
export interface RecordPipelineItemsInput {
  prefix: string;
  records: PipelineItemRecord[];
}

/** A JSON file of the store, parsed. */
export async function readJson(store: ArtifactStore, key: string): Promise<unknown> {
  return JSON.parse(Buffer.from(await store.get(key)).toString('utf8'));
}

/** A JSON file of the store, parsed, or undefined when the key holds nothing: one read, no `stat` before it. */
export async function readJsonIfStored(store: ArtifactStore, key: string): Promise<unknown> {
  try {
    return await readJson(store, key);
  } catch (error) {
    if (error instanceof ArtifactNotFoundError) return undefined;
    throw error;
  }
}

/**
 * The record an earlier execution of a run left under `key` (an item's or a step's), if any: one that is
 * not JSON counts as none. A read that fails (the store unreachable) throws, so the activity is retried
 * rather than taking a record that exists for a missing one and paying for the item again.
 */
export async function readStoredRecord<T>(store: ArtifactStore, key: string): Promise<T | undefined> {
  try {
    return (await readJsonIfStored(store, key)) as T | undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/** The keys of the items of a run that have a record, sorted (`<prefix>/items/<key>.json`), from the store's listing alone. */
export async function recordedItemKeys(store: ArtifactStore, prefix: string): Promise<string[]> {
  const folder = `${prefix}/items/`;
  return (await store.keys(folder))
    .map((key) => key.slice(folder.length))
    .filter((name) => name.endsWith('.json') && !name.includes('/'))
    .map((name) => name.slice(0, -'.json'.length));
}

/** The record an earlier execution of a run left for an item, if any (see `readStoredRecord`). */
export async function readItemRecord(store: ArtifactStore, prefix: string, key: string): Promise<PipelineItemRecord | undefined> {
  return readStoredRecord<PipelineItemRecord>(store, itemRecordKey(prefix, key));
}

/** The template context of a run. */
export function runContext(run: Pick<PipelineRunRef, 'definition' | 'params' | 'runKey' | 'runDate'>): RunContext {
  return { params: run.params, pipeline: { name: run.definition.name }, run: { key: run.runKey, date: run.runDate } };
}

/**
 * An item's key, or a stand-in (`invalid-<n>`) with the problem when its key cannot be rendered: one
 * bad row fails alone instead of stopping the run.
 */
export function keyOf(definition: PipelineDefinition, source: ItemSource, item: SourceItem, context: RunContext): { key: string; problem?: string } {
  if (source.kind === 'single') return { key: SINGLE_ITEM_KEY };
  try {
    return { key: itemKey(definition.input?.key ?? '', item, context) };
  } catch (error) {
    if (error instanceof ItemError) return { key: `invalid-${item.index + 1}`, problem: error.message };
    throw error;
  }
}

/** Reads input items from `cursor`, turning a file that cannot be read into a non-retryable failure naming it. */
export async function readSourcePage(source: ItemSource, cursor: ItemCursor | undefined, limit: number) {
  try {
    return await readItems(source, { cursor, limit });
  } catch (error) {
    if (error instanceof InputError) throw invalidInput(error.message);
    throw error;
  }
}

/** Item records written at once by `recordPipelineItems`. */
const RECORD_WRITES_AT_ONCE = 8;

/** Writes item records (one file each, replaced whole), so outputs and `--resume` know how each item ended. */
export async function recordPipelineItems(store: ArtifactStore, { prefix, records }: RecordPipelineItemsInput): Promise<{ written: number }> {
  const folder = checkedKeyPrefix(prefix);
  // A few writes at once: each waits mostly on the disk (or the bucket), not on this process.
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < records.length) {
      const record = records[next++]!;
      await store.put(itemRecordKey(folder, record.key), `${JSON.stringify(record)}\n`, 'application/json');
    }
  };
  await Promise.all(Array.from({ length: Math.min(RECORD_WRITES_AT_ONCE, records.length) }, lane));
  return { written: records.length };
}

/** The activity that writes a run's item records. */
export function pipelineRecordActivities({ store }: ActivityDeps) {
  return { recordPipelineItems: (input: RecordPipelineItemsInput) => recordPipelineItems(store, input) };
}
