import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream';
import { CsvError, parse, type Info } from 'csv-parse';
import { checkedFingerprint, InputError, isFileError, shownPath } from './input-file';
import type { ItemCursor, ItemPage, SourceItem } from './types';

// csv-parse adds the header it read to each record's info when `columns` is on; its Info type omits it.
type HeaderInfo = Info & { columns?: Array<{ name: unknown }> | false };

/** Largest CSV record accepted: a bound on memory. */
export const MAX_CSV_RECORD_BYTES = 1024 * 1024;

/**
 * Reads up to `limit` rows of a CSV file with a header from `cursor`, streaming from its byte offset:
 * the header is read once (first page) and kept in the cursor, later pages start at the next record.
 */
export async function readCsvPage(file: string, cursor: ItemCursor, limit: number, delimiter = ','): Promise<ItemPage> {
  const fingerprint = await checkedFingerprint(file, cursor);
  const first = cursor.columns === undefined;
  const start = cursor.byteOffset;
  const stream = createReadStream(file, { start, highWaterMark: 64 * 1024 });
  let bytesRead = 0;
  stream.on('data', (chunk) => {
    bytesRead += chunk.length;
  });
  const parser = parse({
    columns: first ? true : cursor.columns,
    bom: first,
    info: true,
    delimiter,
    trim: true,
    skip_empty_lines: true,
    max_record_size: MAX_CSV_RECORD_BYTES,
  });
  // pipe() does not forward a read error (EISDIR, EACCES, a vanished file): unhandled, it would take the
  // worker process down. pipeline() passes it to the parser, whose iteration below rejects with it.
  pipeline(stream, parser, () => undefined);
  const items: SourceItem[] = [];
  let { index, byteOffset, line } = cursor;
  let columns = cursor.columns;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: HeaderInfo }>) {
      columns ??= (info.columns || []).map((column) => String(column.name));
      items.push({ index: index++, where: `${shownPath(file)}:${cursor.line + info.lines}`, value: record });
      byteOffset = start + info.bytes;
      line = cursor.line + info.lines;
      if (items.length >= limit) break;
    }
  } catch (error) {
    if (isFileError(error)) throw new InputError(`${shownPath(file)}: cannot read input file (${error.code})`);
    if (!(error instanceof CsvError)) throw error;
    const at = (error as CsvError & { lines?: number }).lines;
    throw new InputError(`${shownPath(file)}:${at === undefined ? '?' : cursor.line + at}: ${error.message.replace(/\s*(on|at) line \d+/i, '')}`);
  } finally {
    stream.destroy();
  }
  if (first && columns === undefined) columns = [];
  return { items, cursor: { index, byteOffset, line, columns, fingerprint }, done: byteOffset >= fingerprint.size || items.length < limit, bytesRead };
}
