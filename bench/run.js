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

// Without a bench file named, the combined table runs (`npm run bench [-- fan-out items]`).
if (!process.argv[2]?.endsWith('.ts')) process.argv.splice(2, 0, path.join(__dirname, 'all.ts'));
require(path.resolve(process.argv[2]));
