// Runs a TypeScript benchmark without a build step: `node bench/run.js bench/client.ts`.
// There is no ts-node or @swc/register here, so this hook transpiles each `.ts` file with @swc/core
// (types stripped, no type checking; `npm run typecheck` does that) as Node requires it.
const fs = require('node:fs');
const path = require('node:path');
const { transformSync } = require('@swc/core');

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    sourceMaps: 'inline',
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};

const entry = process.argv[2];
if (!entry) {
  console.error('usage: node bench/run.js <bench file.ts> [arguments]');
  process.exit(2);
}
require(path.resolve(entry));
