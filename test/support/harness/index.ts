/**
 * In-process workflow harness: runs the real workflow bundle through the SDK's workflow runtime
 * with in-process activities and a fake clock. What it does, the SDK version it is tied to and what
 * it cannot show are in README.md next to this file.
 */
export { WorkflowHarness } from './harness';
export { HarnessWorkflowHandle } from './handle';
export type { HarnessOptions } from './runtime';
export { FakeClock, DEFAULT_FAKE_CLOCK_START_MS } from './fake-clock';
export { HARNESS_SDK_VERSION, assertHarnessSdkVersion } from './sdk-version';
export { loadWorkflowBundle } from './bundle';
export {
  HarnessStalledError,
  WaitTimeoutError,
  WorkflowFailedError,
  WorkflowNotRunningError,
  WorkflowQueryFailedError,
  WorkflowTaskFailedError,
  WorkflowUpdateFailedError,
  type WorkflowFailureStatus,
} from './errors';
