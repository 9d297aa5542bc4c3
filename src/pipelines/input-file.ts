import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { FileFingerprint, ItemCursor } from './types';

/** An input file could not be read as items; the message names the file and line. */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

/** How a file is named in messages: relative to the working directory when inside it. */
export function shownPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') ? relative : file;
}

/**
 * The file's fingerprint, refusing a file that changed since the cursor's first page: a byte offset
 * into a different file would skip or repeat items, and a run must page through one version.
 */
export async function checkedFingerprint(file: string, cursor: ItemCursor): Promise<FileFingerprint> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    throw new InputError(`${shownPath(file)}: cannot read input file (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  // A folder, a device or a pipe is not an input file: reading it would fail (EISDIR) or never end.
  if (!info.isFile())
    throw new InputError(`${shownPath(file)}: cannot read input file (${info.isDirectory() ? 'a folder' : 'not a regular file'}; name a CSV or JSONL file)`);
  const fingerprint = { size: info.size, mtimeMs: info.mtimeMs };
  const before = cursor.fingerprint;
  if (before && (before.size !== fingerprint.size || before.mtimeMs !== fingerprint.mtimeMs)) {
    throw new InputError(
      `${shownPath(file)}: input file changed since the run started reading it (size ${before.size} -> ${fingerprint.size}); start a new run`,
    );
  }
  return fingerprint;
}

/** A file system error (ENOENT, EISDIR, EACCES, …) rather than one of parsing. */
export function isFileError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}
