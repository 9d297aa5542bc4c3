/**
 * Load time of the package's entries as a backend sees it: the package is built, packed and unpacked
 * into a consumer folder (test/support/packed-package.ts), then each entry is required by its name in
 * fresh processes, beside `require('undici')` as the baseline. Run with `npm run bench:package`.
 * Optional argument: processes per entry (default 9).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { installPackedPackage, probeRequire, type RequireProbe } from '../test/support/packed-package';
import { log, positiveArg, printTable, runIfEntry, type BenchRow } from './table';

/** One thing to time: a module required by name, after others the process has loaded already. */
interface Target {
  label: string;
  specifier: string;
  preload?: string[];
  /** Goal in milliseconds, if any. */
  goalMs?: number;
}

const BASELINE: Target = { label: "require('undici')", specifier: 'undici' };
const entry = (subpath: string, goalMs?: number): Target => ({
  label: `require('research-pipelines${subpath}')`,
  specifier: `research-pipelines${subpath}`,
  ...(goalMs ? { goalMs } : {}),
});
/** The goal: a backend's require of the client under 100 ms; the root is smaller still. */
const TARGETS: Target[] = [
  entry('', 100),
  entry('/client', 100),
  // A backend has its own Temporal client loaded already: what the client entry adds to that.
  { label: "  the same after require('@temporalio/client')", specifier: 'research-pipelines/client', preload: ['@temporalio/client'] },
  ...['/workflows', '/activities', '/worker', '/intake', '/codec', '/emulator'].map((subpath) => entry(subpath)),
];

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Requires every target once per round, in turn, so drift on a shared machine hits them alike. */
function measure(consumer: string, targets: Target[], rounds: number): Map<Target, RequireProbe[] | Error> {
  const probes = new Map<Target, RequireProbe[] | Error>(targets.map((target) => [target, []]));
  for (let round = 0; round < rounds; round++) {
    log(`round ${round + 1}/${rounds}`);
    for (const target of targets) {
      const seen = probes.get(target);
      if (seen instanceof Error) continue;
      try {
        seen!.push(probeRequire(consumer, target.specifier, target.preload));
      } catch (error) {
        probes.set(target, error instanceof Error ? error : new Error(String(error)));
      }
    }
  }
  return probes;
}

runIfEntry(module, async () => {
  const rounds = positiveArg(0, 'processes per entry', 9, true);
  const dir = mkdtempSync(path.join(tmpdir(), 'rp-bench-package-'));
  try {
    log('building and packing the package…');
    const { consumer } = installPackedPackage(dir);
    const probes = measure(consumer, [BASELINE, ...TARGETS], rounds);
    const baseline = probes.get(BASELINE);
    if (!Array.isArray(baseline)) throw baseline ?? new Error('no baseline');
    const baselineMs = median(baseline.map((probe) => probe.ms));
    const rows: BenchRow[] = TARGETS.map((target) => {
      const seen = probes.get(target)!;
      const goal = target.goalMs;
      const figure = target.label;
      const baselineText = `undici ${baselineMs.toFixed(0)} ms`;
      if (!Array.isArray(seen))
        return {
          bench: 'package load',
          figure,
          measured: `fails: ${(/\w*Error\b.*/.exec(seen.message)?.[0] ?? seen.message).slice(0, 90)}`,
          baseline: baselineText,
          goal: goal ? `< ${goal} ms` : '',
          ...(goal ? { met: false } : {}),
        };
      const ms = median(seen.map((probe) => probe.ms));
      const measured = `${ms.toFixed(0)} ms (${(ms / baselineMs).toFixed(1)}x; cpu ${median(seen.map((probe) => probe.cpuMs)).toFixed(0)} ms; ${seen[0]!.modules.length} modules; ${seen[0]!.names.length} names)`;
      return { bench: 'package load', figure, measured, baseline: baselineText, goal: goal ? `< ${goal} ms` : '', ...(goal ? { met: ms < goal } : {}) };
    });
    printTable(rows);
    process.stdout.write(
      `(medians of ${rounds} fresh processes each, require() alone, node start not counted; baseline: ${BASELINE.label} with cpu ${median(baseline.map((probe) => probe.cpuMs)).toFixed(0)} ms, ${baseline[0]!.modules.length} modules)\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
