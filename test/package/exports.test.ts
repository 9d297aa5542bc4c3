import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { installPackedPackage, owningPackage, packageExports, probeRequire, ROOT, type InstalledPackage } from '../support/packed-package';

// The package as a backend installs it: packed with `npm pack`, unpacked into a consumer's
// node_modules, each entry required by its name in a fresh process.

let dir: string;
let installed: InstalledPackage;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'rp-package-'));
  installed = installPackedPackage(dir);
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The packages (and the package's own folders) a fresh process loaded to require `specifier`. */
function loadedBy(specifier: string): { names: string[]; owners: Set<string> } {
  const probe = probeRequire(installed.consumer, specifier);
  return { names: probe.names, owners: new Set(probe.modules.map(owningPackage)) };
}

/** Owners matching any of `patterns`: what should not have loaded. */
const matching = (owners: Set<string>, patterns: RegExp[]) => [...owners].filter((owner) => patterns.some((pattern) => pattern.test(owner))).sort();

test('the tarball ships every file the exports map names, and no source maps or TypeScript sources', () => {
  const targets = Object.values(packageExports()).flatMap((target) => (typeof target === 'string' ? [target] : [target.types, target.default]));
  expect(targets.map((target) => target.replace(/^\.\//, '')).filter((file) => !installed.files.includes(file))).toEqual([]);
  expect(installed.files.filter((file) => file.endsWith('.map') || file.startsWith('src/') || (file.endsWith('.ts') && !file.endsWith('.d.ts')))).toEqual([]);
});

test.each([
  ['research-pipelines', ['FailureType', 'ResearchStatusKey', 'researchTaskWorkflowId', 'respondToCheckpointUpdate']],
  [
    'research-pipelines/client',
    [
      'ResearchClient',
      'dataConverterFromConfig',
      'loadPipelineDefinition',
      'researchTaskWorkflowId',
      'respondToCheckpointUpdate',
      'startPipeline',
      'verifyWebhookSignature',
    ],
  ],
  ['research-pipelines/workflows', ['pipelineRunWorkflow', 'researchBatchWorkflow', 'researchTaskWorkflow']],
  ['research-pipelines/activities', ['FileWebhookSecretStore', 'LocalArtifactStore', 'createActivities']],
  ['research-pipelines/worker', ['WORKFLOW_INTERCEPTOR_MODULES', 'createWorkerOptions', 'loadConfig', 'runWorker']],
  ['research-pipelines/intake', ['buildIntake', 'runIntake']],
  ['research-pipelines/codec', ['AesGcmPayloadCodec', 'codecRoutes', 'startCodecServer']],
  ['research-pipelines/emulator', ['startEmulator']],
])('%s can be required by name and has its main exports', (specifier, expected) => {
  expect(loadedBy(specifier).names).toEqual(expect.arrayContaining(expected));
});

test('the client entry loads neither the worker, fastify, pino, the emulator, the AWS SDK nor the Temporal client', () => {
  const { owners } = loadedBy('research-pipelines/client');
  expect(
    matching(owners, [
      /^@temporalio\/(worker|client|testing)$/,
      /^@aws-sdk\//,
      /^@grpc\//,
      /^fastify$/,
      /^pino(-pretty)?$/,
      /^research-pipelines\/dist\/(emulator|intake|activities)\//,
      /^research-pipelines\/dist\/worker\.js$/,
    ]),
  ).toEqual([]);
});

test.each(['research-pipelines/activities', 'research-pipelines/worker'])('%s loads the AWS SDK only when an s3:// store is opened', (specifier) => {
  expect(matching(loadedBy(specifier).owners, [/^@aws-sdk\//, /^@smithy\//])).toEqual([]);
});

test('the root loads only the Temporal workflow and common packages: no HTTP client, schemas or YAML', () => {
  const { names, owners } = loadedBy('research-pipelines');
  expect(names).not.toContain('ResearchClient');
  expect(matching(owners, [/^(undici|zod|yaml|fastify|pino)$/, /^@temporalio\/(worker|client|activity)$/])).toEqual([]);
});

test('the workflows entry bundles for a worker, with the interceptor modules the worker entry names', () => {
  const script = `
    const { bundleWorkflowCode } = require(require.resolve('@temporalio/worker', { paths: [${JSON.stringify(installed.packageDir)}] }));
    const { WORKFLOW_INTERCEPTOR_MODULES } = require('research-pipelines/worker');
    bundleWorkflowCode({ workflowsPath: require.resolve('research-pipelines/workflows'), workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES, logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } })
      .then((bundle) => process.stdout.write(String(bundle.code.length)), (error) => { console.error(error); process.exit(1); });
  `;
  const result = spawnSync(process.execPath, ['-e', script], { cwd: installed.consumer, encoding: 'utf8' });
  expect(result.stderr).toBe('');
  expect(Number(result.stdout)).toBeGreaterThan(100_000);
}, 120_000);

test.each([
  ['node16', ['--module', 'node16', '--moduleResolution', 'node16']],
  ['node10 (typesVersions)', ['--module', 'commonjs', '--moduleResolution', 'node10']],
])(
  'TypeScript finds the types of every entry with %s resolution',
  (_, resolution) => {
    const file = path.join(installed.consumer, 'uses-entries.ts');
    writeFileSync(
      file,
      [
        "import { researchTaskWorkflowId } from 'research-pipelines';",
        "import { ResearchClient, startPipeline, type StartPipelineOptions } from 'research-pipelines/client';",
        "import { researchTaskWorkflow } from 'research-pipelines/workflows';",
        "import { createActivities } from 'research-pipelines/activities';",
        "import { createWorkerOptions } from 'research-pipelines/worker';",
        "import { buildIntake } from 'research-pipelines/intake';",
        "import { startCodecServer } from 'research-pipelines/codec';",
        "import { startEmulator } from 'research-pipelines/emulator';",
        "const options: StartPipelineOptions = { runKey: 'r1' };",
        "const id: string = researchTaskWorkflowId({ pipeline: 'p', run: 'r', item: 'i' });",
        'export const used = [id, options, ResearchClient, startPipeline, researchTaskWorkflow, createActivities, createWorkerOptions, buildIntake, startCodecServer, startEmulator];',
        '',
      ].join('\n'),
    );
    const result = spawnSync(
      process.execPath,
      [
        require.resolve('typescript/bin/tsc'),
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--target',
        'es2022',
        ...resolution,
        '--typeRoots',
        path.join(ROOT, 'node_modules', '@types'),
        '--types',
        'node',
        file,
      ],
      { cwd: installed.consumer, encoding: 'utf8' },
    );
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  },
  120_000,
);
