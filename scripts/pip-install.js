// Shared by the install-*.js scripts: installs pinned packages from the Python package registry into a
// project folder with `pip install --target`, and records the pins so a second run is a no-op.
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');

// pip may be reachable as a module of python3 or python, or as its own command.
const PIP_CANDIDATES = [
  ['python3', ['-m', 'pip']],
  ['python', ['-m', 'pip']],
  ['pip3', []],
  ['pip', []],
];

/** The first working pip as `[command, args]`, or undefined. */
function pipCommand() {
  for (const [command, args] of PIP_CANDIDATES) {
    const probe = spawnSync(command, [...args, '--version'], { encoding: 'utf8' });
    if (probe.status === 0) return [command, args];
  }
  return undefined;
}

/**
 * Installs `pins` ({ package: version }) into `target` unless its `installed.json` already records
 * them and every path in `expect` exists. Errors go to stderr prefixed with `name`; `noPipHint` ends
 * the no-pip message. Returns the process exit code (0 or 1).
 */
function installPinned({ name, label, pins, target, expect, noPipHint = 'install Python 3 with pip', quiet = false }) {
  const say = (line) => {
    if (!quiet) process.stderr.write(`${line}\n`);
  };
  const fail = (line) => {
    process.stderr.write(`${name}: ${line}\n`);
    return 1;
  };
  const marker = `${target}/installed.json`;
  const present = () => expect.every((file) => existsSync(file));
  try {
    if (JSON.stringify(JSON.parse(readFileSync(marker, 'utf8'))) === JSON.stringify(pins) && present()) {
      say(`${label} already installed in ${target}`);
      return 0;
    }
  } catch {
    // No marker yet, or an unreadable one: install.
  }
  const pip = pipCommand();
  if (!pip) return fail(`no pip found (tried ${PIP_CANDIDATES.map(([command, args]) => [command, ...args].join(' ')).join(', ')}); ${noPipHint}`);
  const specs = Object.entries(pins).map(([pkg, version]) => `${pkg}==${version}`);
  say(`installing ${specs.join(' ')} into ${target} …`);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  const [command, args] = pip;
  const run = spawnSync(command, [...args, 'install', '--quiet', '--disable-pip-version-check', '--no-warn-script-location', '--target', target, ...specs], {
    encoding: 'utf8',
    env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' },
  });
  if (run.status !== 0) return fail(`pip install failed (exit ${run.status}):\n${(run.stderr || run.stdout || '').trim()}`);
  if (!present()) return fail(`pip finished but ${expect.filter((file) => !existsSync(file)).join(' or ')} is missing (no wheel for this platform?)`);
  writeFileSync(marker, `${JSON.stringify(pins)}\n`);
  return 0;
}

module.exports = { installPinned, pipCommand };
