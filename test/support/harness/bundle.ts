import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { Workflow, WorkflowCreateOptions } from '@temporalio/worker/lib/workflow/interface';
import { VMWorkflowCreator } from '@temporalio/worker/lib/workflow/vm';
import { globalHandlers } from '@temporalio/worker/lib/workflow/vm-shared';
import type { WorkflowBundleWithSourceMapAndFilename } from '@temporalio/worker/lib/workflow/workflow-worker-thread/input';
import { QuietLogger } from './quiet-logger';
import { assertHarnessSdkVersion } from './sdk-version';

// Everything below reaches into SDK internals, so refuse to run against any other SDK version.
assertHarnessSdkVersion();

/** A bundle as the SDK's VM creator wants it: code, its parsed inline source map, and a file name. */
export type WorkflowBundle = WorkflowBundleWithSourceMapAndFilename;

/** Creates sandboxed workflow instances from one bundle; what the harness needs of the SDK's creator. */
export interface WorkflowFactory {
  createWorkflow(options: WorkflowCreateOptions): Promise<Workflow>;
  destroy(): Promise<void>;
}

// Bundling runs webpack (about a second), so each workflowsPath is bundled once per process.
const bundles = new Map<string, Promise<WorkflowBundle>>();

/** Bundles the workflows at `workflowsPath` once per process and returns the cached bundle after that. */
export function loadWorkflowBundle(workflowsPath: string): Promise<WorkflowBundle> {
  const key = path.resolve(workflowsPath);
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = buildBundle(key);
    bundles.set(key, bundle);
    // A failed bundle must not be cached: the next test should see the real error again.
    bundle.catch(() => bundles.delete(key));
  }
  return bundle;
}

async function buildBundle(workflowsPath: string): Promise<WorkflowBundle> {
  const logger = new QuietLogger();
  let code: string;
  try {
    ({ code } = await bundleWorkflowCode({ workflowsPath, logger }));
  } catch (error) {
    const details = logger.errors.join('\n');
    throw new Error(`Bundling workflows at ${workflowsPath} failed: ${String(error)}${details ? `\n${details}` : ''}`, {
      cause: error,
    });
  }
  return { code, sourceMap: parseInlineSourceMap(code, workflowsPath), filename: `${workflowsPath}#bundle.js` };
}

/**
 * The bundle's own `sourceMap` field is a deprecated placeholder; the usable map is the base64 JSON
 * inlined at the end of the code (see docs/TESTING.md).
 */
function parseInlineSourceMap(code: string, workflowsPath: string): WorkflowBundle['sourceMap'] {
  const match = /\/\/# sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)\s*$/.exec(code);
  if (!match?.[1]) throw new Error(`The workflow bundle for ${workflowsPath} has no inline source map`);
  const parsed: unknown = JSON.parse(Buffer.from(match[1], 'base64').toString('utf8'));
  if (typeof parsed !== 'object' || parsed === null || !('mappings' in parsed) || !('sources' in parsed)) {
    throw new Error(`The inline source map of the workflow bundle for ${workflowsPath} is not a source map`);
  }
  // Checked for the fields the SDK reads; the rest of RawSourceMap is optional metadata.
  return parsed as WorkflowBundle['sourceMap'];
}

// Per-creator file names keep source-map registrations apart: the SDK keys them by file name and
// removes them when a creator is destroyed, which would break stack traces of other harnesses.
let creatorCount = 0;
let liveCreators = 0;

/**
 * Makes a workflow factory from the SDK's in-process VM creator. `activityNames` are the activities
 * registered in the harness (the SDK checks local activity names against them).
 */
export async function createWorkflowFactory(bundle: WorkflowBundle, activityNames: Iterable<string>): Promise<WorkflowFactory> {
  const filename = `${bundle.filename}#${++creatorCount}`;
  // The same 5 s deadlock guard as a real worker's default isolateExecutionTimeout.
  const creator = await VMWorkflowCreator.create({ ...bundle, filename }, 5_000, new Set(activityNames));
  liveCreators += 1;
  return {
    createWorkflow: (options) => creator.createWorkflow(options),
    async destroy() {
      await creator.destroy();
      // Creating a VM creator installs process-wide promise hooks and a stack trace formatter that
      // the SDK never removes (a worker thread normally dies with them). Remove them once the last
      // harness is gone so they do not slow down or pile up over the rest of the test process; the
      // next creator installs them again.
      liveCreators -= 1;
      if (liveCreators === 0) globalHandlers.uninstall();
    },
  };
}
