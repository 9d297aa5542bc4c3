import type { ItemCursor } from '../pipelines/types';
import type { PipelineItemRecord } from '../domain/pipeline-types';
import { itemRecordKey } from './pipeline-items';
import type { ArtifactStore } from './store';

// The files a `batch` step's rounds keep in the store: each round's tasks and items as JSON lines, so
// neither the run's nor the batch's history ever holds the queries.

/** Where the items of a batch round come from: the input from a cursor, or the failed tasks of the round before. */
export type BatchRoundSource =
  { from: 'input'; cursor?: ItemCursor; skip: number } | { from: 'retry'; key: string; itemsKey: string; count: number; skip: number };

/** One task of a round as the run knows it: the item it runs and its attempt. */
export interface RoundItem {
  key: string;
  index: number;
  attempts: number;
}

/** A round's task as the service gets it. */
export interface RoundTask {
  id: string;
  query: string;
}

/** Problems and failures a round reports (the last ones; every one is in its item's record). */
export const MAX_ROUND_PROBLEMS = 10;

/** Where a round's file lives (`tasks`, `items`, `retry-tasks`, `retry-items`). */
export const roundKey = (prefix: string, round: number, name: string): string => `${prefix}/batch-rounds/${round}-${name}.jsonl`;

/** Values as JSON lines. */
export const jsonLines = (values: unknown[]): string => values.map((value) => `${JSON.stringify(value)}\n`).join('');

/** The values of a JSON-lines file in the store. */
export async function readJsonLines(store: ArtifactStore, key: string): Promise<unknown[]> {
  const text = Buffer.from(await store.get(key)).toString('utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** Writes an item's record (replaced whole), as outputs and `--resume` read it. */
export async function writeRoundRecord(store: ArtifactStore, prefix: string, record: PipelineItemRecord): Promise<void> {
  await store.put(itemRecordKey(prefix, record.key), `${JSON.stringify(record, null, 2)}\n`, 'application/json');
}
