// Bundles the bench's workflows (the project's and the bare loop) with the production interceptors into
// one file, as a deployment bundles ahead of time: the fan-out bench runs this in a child process so
// webpack's memory is not counted in the worker's RSS.
// Usage: node bench/run.js bench/bundle-workflows.ts OUT.js
import { writeFile } from 'node:fs/promises';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../src/worker';
import { positionalArgs, runIfEntry } from './table';

runIfEntry(module, async () => {
  const [out] = positionalArgs();
  if (!out) throw new Error('usage: node bench/run.js bench/bundle-workflows.ts OUT.js');
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows'),
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  await writeFile(out, code);
});
