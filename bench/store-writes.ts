// Store writes benchmark (`npm run bench:store -- [folder] [count]`): what the local artifact store's
// writes cost on a folder's disk, beside the same writes in memory (/dev/shm, a tmpfs) as the baseline.
// Each completed pipeline item creates two small files (its result and its record); on a disk where
// creating a file is slow, that is most of what a pipeline's CPU per item varies by (see bench/README.md).
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalArtifactStore } from '../src/activities';
import { log, positionalArgs, positiveArg, printTable, runIfEntry, type BenchRow } from './table';

/** Per operation: wall time, and the process's CPU (user and kernel) while `count` of them ran, `concurrency` at once. */
interface Cost {
  wallMs: number;
  userMs: number;
  systemMs: number;
}

async function measure(count: number, concurrency: number, op: (index: number) => Promise<unknown>): Promise<Cost> {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let start = 0; start < count; start += concurrency)
    await Promise.all(Array.from({ length: Math.min(concurrency, count - start) }, (_, offset) => op(start + offset)));
  const used = process.cpuUsage(cpu);
  return { wallMs: Number(process.hrtime.bigint() - started) / 1e6 / count, userMs: used.user / 1000 / count, systemMs: used.system / 1000 / count };
}

/** The costs of creating files, of the store's puts (new keys, then the same keys again) and of its gets, under `root`. */
async function costsIn(root: string, count: number): Promise<Record<'created' | 'putNew' | 'putAgain' | 'get', Cost>> {
  const dir = await mkdtemp(path.join(root, 'rp-bench-store-'));
  try {
    const body = Buffer.from(
      JSON.stringify({ key: 'k', kind: 'search', output: [{ title: 't', url: 'https://example.com/', content: 'x'.repeat(400) }], costUsd: 0.004 }),
    );
    const store = new LocalArtifactStore(path.join(dir, 'store'));
    await store.put('run/results/warm.json', body, 'application/json');
    const created = await measure(count, 12, async (index) => {
      const handle = await open(path.join(dir, `created-${index}-${randomUUID()}`), 'wx');
      await handle.write(body);
      await handle.close();
    });
    const putNew = await measure(count, 12, (index) => store.put(`run/results/item-${index}.json`, body, 'application/json'));
    const putAgain = await measure(count, 12, (index) => store.put(`run/results/item-${index}.json`, body, 'application/json'));
    const get = await measure(count, 16, (index) => store.get(`run/results/item-${index}.json`));
    return { created, putNew, putAgain, get };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const shown = (cost: Cost) =>
  `${cost.wallMs.toFixed(3)} ms wall, ${(cost.userMs + cost.systemMs).toFixed(3)} ms CPU (${cost.systemMs.toFixed(3)} in the kernel)`;

runIfEntry(module, async () => {
  const folder = path.resolve(positionalArgs()[0] ?? tmpdir());
  const count = positiveArg(1, 'count', 2_000, true);
  const memory = existsSync('/dev/shm') ? '/dev/shm' : undefined;
  log(`store writes: ${count} of each operation in ${folder}${memory ? `, and in ${memory} (memory) as the baseline` : ''}…`);
  const disk = await costsIn(folder, count);
  const baseline = memory ? await costsIn(memory, count) : undefined;
  const figures: Array<[keyof typeof disk, string]> = [
    ['created', 'create a new file (open, write 0.5 KB, close), 12 at once'],
    ['putNew', 'store put of a new key (an item result: temp file, fsync, rename), 12 at once'],
    ['putAgain', 'store put of an existing key, 12 at once'],
    ['get', 'store get, 16 at once'],
  ];
  const rows: BenchRow[] = figures.map(([name, figure]) => ({
    bench: `store writes in ${folder}`,
    figure: `${figure}, per operation`,
    measured: shown(disk[name]),
    baseline: baseline ? `${shown(baseline[name])} (memory)` : 'no /dev/shm',
    goal: '',
  }));
  printTable(rows);
});
