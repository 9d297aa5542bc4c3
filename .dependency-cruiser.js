/**
 * What may import what in src/ (docs/ARCHITECTURE.md explains each rule). `test/architecture/` runs
 * this on every `npm test`, and checks with fixtures that each rule still fails when broken; the
 * command line gives the same findings: `npx depcruise src --config .dependency-cruiser.js`.
 * Paths are relative to where the cruise runs (the project root), so every rule starts at `^src/`.
 */
const path = require('node:path');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No file imports itself through others (type-only imports count: a type cycle is still a tangle).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'shared-at-the-bottom',
      comment: 'src/shared holds helpers with no home of their own: it imports nothing else of src/.',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
    {
      name: 'api-on-shared-only',
      comment: 'The service client stands on its own (it is also what the emulator and a backend import).',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: '^src/', pathNot: '^src/(api|shared)/' },
    },
    {
      name: 'codec-on-shared-only',
      comment: 'The payload codec is loaded by workers, clients and the codec server alike: it imports nothing above shared/.',
      severity: 'error',
      from: { path: '^src/codec/' },
      to: { path: '^src/', pathNot: '^src/(codec|shared)/' },
    },
    {
      name: 'pipelines-on-api-only',
      comment:
        'The definition language sits on the service client and the shared helpers only; runs, workflows and ' +
        'activities sit on it (an import of workflows/ is reported by pipelines-not-workflows).',
      severity: 'error',
      from: { path: '^src/pipelines/' },
      to: { path: '^src/', pathNot: '^src/(pipelines|api|shared|workflows)/' },
    },
    {
      name: 'activities-not-workflows',
      comment: 'Activities never import workflow code, not even a type: what both need is in src/domain.',
      severity: 'error',
      from: { path: '^src/activities/' },
      to: { path: '^src/workflows/' },
    },
    {
      name: 'workflows-only-activity-types',
      comment: 'Workflows import activities with `import type` only (for proxyActivities): the bundle never loads activity code.',
      severity: 'error',
      from: { path: '^src/workflows/' },
      to: { path: '^src/activities/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'pipelines-not-workflows',
      comment: 'The definition language sits below the workflows: ids and run types it needs are in src/domain.',
      severity: 'error',
      from: { path: '^src/pipelines/' },
      to: { path: '^src/workflows/' },
    },
    {
      name: 'domain-is-a-leaf',
      comment:
        'src/domain depends at run time on nothing of src/ but src/shared: workflows and activities both import it. ' +
        "The one exception: the message schemas (domain/messages.ts) build on the service's checkpoint schemas and the zod issue wording, both zod alone.",
      severity: 'error',
      from: { path: '^src/domain/' },
      to: {
        path: '^src/',
        pathNot: '^src/(domain|shared)/|^src/api/schemas/checkpoints[.]ts$|^src/pipelines/issue-messages[.]ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'domain-types-from-below',
      comment: 'src/domain may name types of api/ and pipelines/ (the layers below it), never of the layers above.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/(domain|shared|api|pipelines)/' },
    },
    {
      name: 'emulator-not-commands',
      comment: 'The emulator is a product part of its own: it never imports the CLI.',
      severity: 'error',
      from: { path: '^src/emulator/' },
      to: { path: '^src/commands/' },
    },
    {
      name: 'emulator-stands-alone',
      comment: 'The emulator stands for the research service: it imports only the service client (its schemas) and shared/.',
      severity: 'error',
      from: { path: '^src/emulator/' },
      to: { path: '^src/', pathNot: '^src/(emulator|api|shared|commands)/' },
    },
    {
      name: 'intake-not-activities',
      comment: 'The intake talks to workflows through Temporal, never through activity code.',
      severity: 'error',
      from: { path: '^src/intake/' },
      to: { path: '^src/activities/' },
    },
    {
      name: 'no-testing-in-production',
      comment:
        'Only src/temporal/server.ts (the dev server of `rp dev` and the tests) loads @temporalio/testing; ' +
        'the worker, the intake and the package entry never do.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/temporal/server\\.ts$' },
      to: { path: 'node_modules/@temporalio/testing/' },
    },
    {
      name: 'dev-server-only-from-dev',
      comment: 'src/temporal/server.ts starts servers: only `rp dev` (src/dev.ts) may load it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/dev\\.ts$' },
      to: { path: '^src/temporal/server\\.ts$' },
    },
    {
      name: 'aws-sdk-loaded-lazily',
      comment:
        'The AWS SDK loads only with an s3:// artifact store: only src/activities/s3-store.ts imports it, and ' +
        'that file is reached by a dynamic import (openArtifactStore) or `import type`, so clients, the intake ' +
        'and a worker on a local store never load it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/activities/s3-store\\.ts$' },
      to: { path: '(node_modules/@aws-sdk/|^src/activities/s3-store\\.ts$)', dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'dev-loaded-lazily',
      comment: '`rp dev` is loaded on demand (a dynamic import from src/cli.ts), so no other command loads the dev server.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/dev\\.ts$', dependencyTypesNot: ['dynamic-import'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.(md|json)$' },
    // `import type` counts: the rules are about design, not only about what loads at run time.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: path.join(__dirname, 'tsconfig.json') },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
