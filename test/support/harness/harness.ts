import type { ScenarioEnv, ScenarioStartOptions, WaitUntilOptions } from '../scenario-env';
import { DEFAULT_WAIT_TIMEOUT_MS } from '../scenario-setup';
import { WaitTimeoutError } from './errors';
import type { FakeClock } from './fake-clock';
import { HarnessWorkflowHandle } from './handle';
import { toPayloads } from './payloads';
import { HarnessRuntime, type HarnessOptions } from './runtime';

/**
 * Runs the real workflow bundle in-process through the SDK's workflow runtime, with activities
 * in-process and time on a fake clock that moves only when the test asks. See README.md.
 */
export class WorkflowHarness implements ScenarioEnv {
  readonly kind = 'harness';

  private constructor(private readonly runtime: HarnessRuntime) {}

  /** Bundles the workflows (once per path per process) and creates a harness. */
  static async create(options: HarnessOptions): Promise<WorkflowHarness> {
    return new WorkflowHarness(await HarnessRuntime.create(options));
  }

  /** The fake clock; hand it to an in-process emulator so its timers fire as time is skipped. */
  get clock(): FakeClock {
    return this.runtime.clock;
  }

  /** Starts a workflow and runs its first activation; throws if the id is already running. */
  async start<R = unknown>(workflowType: string, options: ScenarioStartOptions): Promise<HarnessWorkflowHandle<R>> {
    this.runtime.assertOpen();
    const execution = await this.runtime.executions.startExecution({
      workflowType,
      workflowId: options.workflowId,
      args: toPayloads(options.args ?? []),
    });
    await this.runtime.flush();
    return new HarnessWorkflowHandle<R>(this.runtime, execution);
  }

  /** A handle on the latest execution with this id (a child workflow, say). */
  getHandle<R = unknown>(workflowId: string): HarnessWorkflowHandle<R> {
    const execution = this.runtime.executions.find(workflowId);
    if (!execution) throw new Error(`No workflow with id ${workflowId} was started in this harness`);
    return new HarnessWorkflowHandle<R>(this.runtime, execution);
  }

  /** Skips `ms` of fake time, firing every timer due on the way and running what they wake. */
  async sleep(ms: number): Promise<void> {
    this.runtime.assertOpen();
    await this.runtime.advance(() => false, this.clock.now() + ms, `${ms} ms to pass`);
  }

  /** Skips time step by step until `predicate` holds; WaitTimeoutError after `timeoutMs` of fake time. */
  async waitUntil(predicate: () => boolean | Promise<boolean>, options: WaitUntilOptions = {}): Promise<void> {
    this.runtime.assertOpen();
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
    const description = options.description ?? 'the condition';
    const held = await this.runtime.advance(predicate, this.clock.now() + timeoutMs, description);
    if (!held) {
      throw new WaitTimeoutError(`waitUntil timed out after ${timeoutMs} ms of harness time waiting for ${description}`);
    }
  }

  /** Disposes every sandbox; running activities' late results are ignored. */
  async close(): Promise<void> {
    await this.runtime.close();
  }
}
