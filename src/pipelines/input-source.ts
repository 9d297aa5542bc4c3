import * as path from 'node:path';
import type { LoadedPipeline } from './load';
import type { ItemSource } from './types';

/** The item source of a loaded definition, with file paths resolved against the definition's folder. */
export function itemSource(loaded: LoadedPipeline): ItemSource {
  const input = loaded.definition.input;
  const folder = path.dirname(loaded.file);
  if (!input) return { kind: 'single' };
  if (input.csv !== undefined) return { kind: 'csv', path: path.resolve(folder, input.csv), ...(input.delimiter ? { delimiter: input.delimiter } : {}) };
  if (input.jsonl !== undefined) return { kind: 'jsonl', path: path.resolve(folder, input.jsonl) };
  return { kind: 'inline', items: input.items ?? [] };
}

/** The starting cursor of a run. */
export const FIRST_PAGE = { index: 0, byteOffset: 0, line: 0 } as const;
