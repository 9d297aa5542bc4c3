import { resolve } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { openTemporalServer, PRECISE_TIMER_ARGS, type TemporalServer } from '../src/temporal/server';

// The one table every benchmark prints into: each figure beside its baseline (measured in the same
// process) and its goal.

/** One figure of a benchmark. */
export interface BenchRow {
  bench: string;
  figure: string;
  /** The project's figure. */
  measured: string;
  /** The baseline's figure, run in the same process against the same service. */
  baseline: string;
  goal: string;
  /** Whether the goal is met; undefined when the figure has no goal. */
  met?: boolean;
}

/** Prints rows as an aligned plain-text table on stdout. */
export function printTable(rows: readonly BenchRow[]): void {
  const lines = [
    ['bench', 'figure', 'measured', 'baseline', 'goal', 'met'],
    ...rows.map((row) => [row.bench, row.figure, row.measured, row.baseline, row.goal, row.met === undefined ? '' : row.met ? 'yes' : 'NO']),
  ];
  const widths = lines[0]!.map((_, column) => Math.max(...lines.map((line) => line[column]!.length)));
  for (const [index, line] of lines.entries()) {
    process.stdout.write(
      `${line
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd()}\n`,
    );
    if (index === 0) process.stdout.write(`${widths.map((width) => '-'.repeat(width)).join('  ')}\n`);
  }
}

/** Progress lines go to stderr so the table on stdout stays clean. */
export const log = (line: string): void => void process.stderr.write(`${line}\n`);

/** Runs `main` when the file is the entry named on the command line (bench/run.js). */
export function runIfEntry(module: NodeModule, main: () => Promise<void>): void {
  if (resolve(process.argv[2] ?? '') !== module.filename) return;
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}

/** The command-line argument at `index` (after the bench file) as a positive number, or `fallback`; a clear error otherwise. */
export function positiveArg(index: number, name: string, fallback: number, integer = false): number {
  const text = positionalArgs()[index];
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`argument ${index + 1} (${name}) must be a positive ${integer ? 'integer' : 'number'}, got "${text}"`);
  }
  return value;
}

/** The command-line arguments after the bench file that are not flags (`--json`, `--step=answer`). */
export function positionalArgs(): string[] {
  return process.argv.slice(3).filter((arg) => !arg.startsWith('--'));
}

/** True when the flag `--name` was given. */
export function hasFlag(name: string): boolean {
  return process.argv.slice(3).includes(`--${name}`);
}

/** The value of `--name=value`, or undefined. */
export function flagValue(name: string): string | undefined {
  const arg = process.argv.slice(3).find((candidate) => candidate.startsWith(`--${name}=`));
  return arg?.slice(name.length + 3);
}

/**
 * Runs `measure` on a Temporal server found or started as the tests do (precise timers when the bench
 * runs a fast service clock against the workflows' timers), with the SDK quiet, and stops the server.
 */
export async function withBenchServer(options: { preciseTimers?: boolean }, measure: (server: TemporalServer) => Promise<void>): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const server = await openTemporalServer({ allowInstall: true, log, ...(options.preciseTimers ? { devServerArgs: PRECISE_TIMER_ARGS } : {}) });
  try {
    await measure(server);
  } finally {
    await server.close();
  }
}
