import { createReadStream } from 'node:fs';
import { checkedFingerprint, InputError, isFileError, shownPath } from './input-file';
import type { ItemCursor, ItemPage, SourceItem } from './types';

/** Longest line accepted: a bound on memory, far above any sensible item. */
export const MAX_JSONL_LINE_BYTES = 1024 * 1024;

/**
 * Reads up to `limit` items of a JSON-lines file from `cursor`, streaming from its byte offset (never
 * the whole file). Each non-blank line must be one JSON object.
 */
export async function readJsonlPage(file: string, cursor: ItemCursor, limit: number): Promise<ItemPage> {
  const fingerprint = await checkedFingerprint(file, cursor);
  const items: SourceItem[] = [];
  let { index, byteOffset, line } = cursor;
  let bytesRead = 0;
  let pending: Buffer = Buffer.alloc(0);
  const take = (raw: Buffer): void => {
    line += 1;
    const text = raw
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trim();
    if (text === '') return;
    const where = `${shownPath(file)}:${line}`;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new InputError(`${where}: not valid JSON (${(error as Error).message})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InputError(`${where}: each line must be a JSON object`);
    items.push({ index: index++, where, value });
  };
  const stream = createReadStream(file, { start: byteOffset, highWaterMark: 64 * 1024 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytesRead += chunk.length;
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let newline: number;
      while (items.length < limit && (newline = pending.indexOf(0x0a)) !== -1) {
        take(pending.subarray(0, newline));
        byteOffset += newline + 1;
        pending = pending.subarray(newline + 1);
      }
      if (items.length >= limit) break;
      if (pending.length > MAX_JSONL_LINE_BYTES) throw new InputError(`${shownPath(file)}:${line + 1}: line longer than ${MAX_JSONL_LINE_BYTES} bytes`);
    }
    // The last line may lack its newline.
    if (items.length < limit && pending.length > 0 && byteOffset + pending.length >= fingerprint.size) {
      take(pending);
      byteOffset += pending.length;
    }
  } catch (error) {
    if (isFileError(error)) throw new InputError(`${shownPath(file)}: cannot read input file (${error.code})`);
    throw error;
  } finally {
    stream.destroy();
  }
  return { items, cursor: { index, byteOffset, line, fingerprint }, done: byteOffset >= fingerprint.size, bytesRead };
}
