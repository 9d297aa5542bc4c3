#!/usr/bin/env node
// Installs the official Python client (valyu-py, with its dependencies) from the Python package
// registry into the project's .valyu-py/ folder, for the conformance suite that drives the emulator
// with it (test/conformance/valyu-py.test.ts). The pin lives in package.json ("conformanceClients").
// Idempotent: a folder that already holds the pinned version is left alone.
'use strict';
const path = require('node:path');
const { installPinned } = require('./pip-install');

const root = path.resolve(__dirname, '..');
const target = process.env.VALYU_PY_INSTALL_DIR ? path.resolve(process.env.VALYU_PY_INSTALL_DIR) : path.join(root, '.valyu-py');

const code = installPinned({
  name: 'install-valyu-py',
  label: 'valyu-py',
  pins: require(path.join(root, 'package.json')).conformanceClients,
  target,
  expect: [path.join(target, 'valyu', '__init__.py')],
  quiet: process.argv.includes('--quiet'),
});
if (code === 0) process.stdout.write(`valyu-py: ${target}\n`);
process.exitCode = code;
