import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** What a command printed: its `io` for the command, and the text it wrote to stdout and stderr. */
export function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (text: string) => void out.push(text), stderr: (text: string) => void err.push(text) },
    out: () => out.join(''),
    err: () => err.join(''),
  };
}

/**
 * For tests that run `main()` of the CLI: before each test, its writes to stdout and stderr are captured
 * (`out()`, `err()`) and a fresh folder is made (`folder`, named after `prefix`); after it, both are undone.
 */
export function captureCli(prefix: string) {
  let stdout: jest.SpyInstance;
  let stderr: jest.SpyInstance;
  let folder = '';
  beforeEach(() => {
    stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    folder = mkdtempSync(path.join(tmpdir(), prefix));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(folder, { recursive: true, force: true });
  });
  return {
    out: (): string => stdout.mock.calls.map((call) => String(call[0])).join(''),
    err: (): string => stderr.mock.calls.map((call) => String(call[0])).join(''),
    /** Forgets what was written to stdout so far. */
    clearOut: (): void => void stdout.mockClear(),
    get folder(): string {
      return folder;
    },
  };
}
