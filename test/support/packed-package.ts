import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';

// The package as a user gets it: built with tsconfig.build.json, packed with `npm pack` (so `files`
// decides what ships), unpacked under a consumer folder's node_modules and required there by its name.
// Used by test/package and bench/package-load.ts.

/** The repository root. */
export const ROOT = path.resolve(__dirname, '..', '..');

/** A packed and installed copy of the package. */
export interface InstalledPackage {
  /** A folder whose node_modules holds `research-pipelines` (and `undici` and `@temporalio/*`, for the benchmark). */
  consumer: string;
  /** Where the package was unpacked: `<consumer>/node_modules/research-pipelines`. */
  packageDir: string;
  /** Paths of the files in the tarball, relative to the package root. */
  files: string[];
}

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (result.status !== 0)
    throw new Error(`${command} ${args[0] === '-e' ? '-e …' : args.join(' ')} failed (${result.status ?? result.signal}): ${result.stdout}${result.stderr}`);
  return result.stdout;
}

/**
 * Builds the package into `workDir` (never into the checkout's own dist/), packs it and unpacks it into
 * `<workDir>/consumer/node_modules`. Dependencies resolve from the checkout's node_modules through a
 * link, as after an install; nothing is fetched.
 */
export function installPackedPackage(workDir: string): InstalledPackage {
  const stage = path.join(workDir, 'stage');
  mkdirSync(stage, { recursive: true });
  for (const entry of ['package.json', 'README.md', 'LICENSE', 'pipelines', 'scripts'])
    cpSync(path.join(ROOT, entry), path.join(stage, entry), { recursive: true });
  run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', path.join(stage, 'dist')], ROOT);
  const packed = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', workDir], stage)) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  const consumer = path.join(workDir, 'consumer');
  const packageDir = path.join(consumer, 'node_modules', 'research-pipelines');
  mkdirSync(packageDir, { recursive: true });
  run('tar', ['-xzf', path.join(workDir, packed[0]!.filename), '-C', packageDir, '--strip-components=1'], workDir);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(packageDir, 'node_modules'), 'dir');
  for (const dependency of ['undici', '@temporalio'])
    symlinkSync(path.join(ROOT, 'node_modules', dependency), path.join(consumer, 'node_modules', dependency), 'dir');
  return { consumer, packageDir, files: packed[0]!.files.map((file) => file.path).sort() };
}

/** The package.json `exports` map of the checkout. */
export function packageExports(): Record<string, string | { types: string; default: string }> {
  return (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string | { types: string; default: string }> })
    .exports;
}

/** What requiring one module in a fresh process did. */
export interface RequireProbe {
  /** Milliseconds the `require` call took (the process's own start is not counted). */
  ms: number;
  /** CPU milliseconds (user and system) the process spent in that call. */
  cpuMs: number;
  /** The module's export names. */
  names: string[];
  /** Files the `require` added to `require.cache` (real paths). */
  modules: string[];
}

const PROBE = `
for (const module of process.argv.slice(2)) require(module);
const before = new Set(Object.keys(require.cache));
const cpu = process.cpuUsage();
const started = process.hrtime.bigint();
const loaded = require(process.argv[1]);
const ms = Number(process.hrtime.bigint() - started) / 1e6;
const used = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000, names: Object.keys(loaded).sort(), modules: Object.keys(require.cache).filter((file) => !before.has(file)) }));
`;

/**
 * Requires `specifier` by name in a fresh `node` process started in `consumer`, after `preload` (not
 * measured: what the process had loaded already, say the backend's own `@temporalio/client`).
 */
export function probeRequire(consumer: string, specifier: string, preload: readonly string[] = []): RequireProbe {
  return JSON.parse(run(process.execPath, ['-e', PROBE, specifier, ...preload], consumer)) as RequireProbe;
}

/** The package a loaded file belongs to (`@scope/name` or `name`), or `research-pipelines/<path>` for the package's own files. */
export function owningPackage(file: string): string {
  const own = /node_modules\/research-pipelines\/(.+)$/.exec(file);
  if (own) return `research-pipelines/${own[1]}`;
  const match = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
  return match ? match[1]! : file;
}
