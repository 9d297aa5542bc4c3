import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';

// The settings act on V8 process-wide, so each case runs in a Node process of its own: the module is
// transpiled as is, applied, and a thread started afterwards (as Worker.create starts the workflow
// threads) reports how large its young generation grew while it made garbage.
const dir = mkdtempSync(path.join(tmpdir(), 'rp-heap-'));
const moduleFile = path.join(dir, 'worker-heap.js');
writeFileSync(
  moduleFile,
  ts.transpileModule(readFileSync(path.join(__dirname, '../src/worker-heap.ts'), 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const THREAD = `
const { Worker } = require('node:worker_threads');
const settings = require(${JSON.stringify(moduleFile)}).compactWorkerHeap(process.argv[1]);
const thread = new Worker(\`
  const v8 = require('node:v8');
  let kept = [];
  for (let i = 0; i < 2e6; i++) { kept.push({ i, text: 'item ' + i }); if (kept.length > 20000) kept = []; }
  const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  require('node:worker_threads').parentPort.postMessage(young.space_size / 1048576);
\`, { eval: true });
thread.once('message', (youngMb) => { console.log(JSON.stringify({ settings, youngMb })); thread.terminate(); });
`;

function runThread(
  mode: string,
  nodeFlags: string[] = [],
  env: Record<string, string> = {},
): { settings: { applied: string[]; kept: string[] }; youngMb: number } {
  const child = spawnSync(process.execPath, [...nodeFlags, '-e', THREAD, mode], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env } });
  if (child.status !== 0) throw new Error(`the heap check's process failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim()) as { settings: { applied: string[]; kept: string[] }; youngMb: number };
}

describe('compactWorkerHeap (WORKER_HEAP)', () => {
  test('compact: workflow threads started afterwards keep a young generation of 8 MB, where Node lets it grow to 32', () => {
    const compact = runThread('compact');
    expect(compact.settings).toEqual({ applied: ['--max-semi-space-size=4', '--heap-growing-percent=20'], kept: [] });
    expect(compact.youngMb).toBeLessThanOrEqual(8);
    const node = runThread('node');
    expect(node.settings).toEqual({ applied: [], kept: [] });
    expect(node.youngMb).toBeGreaterThan(8);
  });

  test("a size the process was started with is kept (node's own flag or NODE_OPTIONS), the other setting still applied", () => {
    const started = runThread('compact', ['--max-semi-space-size=1']);
    expect(started.settings).toEqual({ applied: ['--heap-growing-percent=20'], kept: ['--max-semi-space-size'] });
    expect(started.youngMb).toBeLessThanOrEqual(2);
    const options = runThread('compact', [], { NODE_OPTIONS: '--max_semi_space_size=16' });
    expect(options.settings).toEqual({ applied: ['--heap-growing-percent=20'], kept: ['--max-semi-space-size'] });
    expect(options.youngMb).toBeGreaterThan(8);
  });
});
