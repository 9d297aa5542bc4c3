import type { Payload, SearchAttributeType } from '@temporalio/common';
import type { coresdk } from '@temporalio/proto';
import type { ActivityOwner, ActivityRequest } from './activity-request';
import { ActivityRunner, type ActivityRunnerHost } from './activity-runner';
import { createWorkflowFactory, loadWorkflowBundle, type WorkflowFactory } from './bundle';
import { applyCommands, type CommandHost, type PendingUpdate } from './commands';
import { WorkflowTaskFailedError } from './errors';
import { ExecutionRegistry, type ExecutionHost } from './executions';
import { FakeClock } from './fake-clock';
import { InFlightWork } from './in-flight';
import { skipTime } from './time-skipping';
import type { WorkflowRun } from './workflow-run';

/** Options of the in-process harness. */
export interface HarnessOptions {
  /** Path of the workflows module (index.ts barrel) to bundle, as for a Worker. */
  readonly workflowsPath: string;
  /** Activity functions by name, as for a Worker. */
  readonly activities?: object;
  /** The clock to drive; pass the same one to an in-process emulator. Defaults to a new FakeClock. */
  readonly clock?: FakeClock;
  readonly namespace?: string;
  readonly taskQueue?: string;
  /** Custom search attributes a server would have registered; upserting any other name fails. */
  readonly searchAttributes?: Readonly<Record<string, SearchAttributeType>>;
  /** Real milliseconds to wait for running activities before reporting a stall (default 10 s). */
  readonly stallTimeoutMs?: number;
}

/**
 * The harness's engine: the activation loop, real-time work tracking and the time-skipping loop.
 * The public API is WorkflowHarness and HarnessWorkflowHandle.
 */
export class HarnessRuntime implements ActivityRunnerHost, CommandHost, ExecutionHost {
  readonly activities: ActivityRunner;
  readonly executions: ExecutionRegistry;
  readonly updates = new Map<string, PendingUpdate>();
  readonly namespace: string;
  readonly taskQueue: string;
  readonly declaredSearchAttributes?: ReadonlySet<string>;
  private readonly inFlight: InFlightWork;
  private activationQueue: Promise<unknown> = Promise.resolve();
  private advanceQueue: Promise<unknown> = Promise.resolve();
  private fatalError: Error | undefined;
  private closed = false;

  private constructor(
    private readonly factory: WorkflowFactory,
    readonly clock: FakeClock,
    options: HarnessOptions,
  ) {
    this.namespace = options.namespace ?? 'default';
    this.taskQueue = options.taskQueue ?? 'workflow-harness';
    this.declaredSearchAttributes = options.searchAttributes && new Set(Object.keys(options.searchAttributes));
    this.activities = new ActivityRunner(this, options.activities ?? {});
    this.executions = new ExecutionRegistry(factory, this);
    this.inFlight = new InFlightWork((error) => this.fail(error), options.stallTimeoutMs ?? 10_000);
  }

  /** Bundles the workflows (once per path per process) and prepares a runtime. */
  static async create(options: HarnessOptions): Promise<HarnessRuntime> {
    const bundle = await loadWorkflowBundle(options.workflowsPath);
    const factory = await createWorkflowFactory(bundle, Object.keys(options.activities ?? {}));
    return new HarnessRuntime(factory, options.clock ?? new FakeClock(), options);
  }

  track(work: Promise<unknown>, description: string): void {
    this.inFlight.track(work, description);
  }

  resolve(owner: ActivityOwner, request: ActivityRequest, resolution: coresdk.activity_result.IActivityResolution): void {
    const run = this.executions.run(owner.runId);
    if (!run?.isOpen) return;
    run.historyEvents += request.isLocal ? 1 : 2; // MarkerRecorded, or ActivityTaskStarted + its outcome
    run.enqueue({ resolveActivity: { seq: request.seq, result: resolution, isLocal: request.isLocal } });
  }

  recordPayload(owner: ActivityOwner, payload: Payload): void {
    this.executions.run(owner.runId)?.recordPayloads([payload]);
  }

  fail(error: Error): void {
    this.fatalError ??= error;
  }

  onRunClosed(run: WorkflowRun): void {
    this.activities.abandon(run);
    for (const [id, update] of this.updates) {
      if (update.run !== run) continue;
      this.updates.delete(id);
      update.reject(new Error(`Workflow ${run.workflowId} closed before update ${update.name} completed`));
    }
  }

  /** Throws if the harness is closed; every public entry point checks this. */
  assertOpen(): void {
    if (this.closed) throw new Error('The workflow harness is closed');
  }

  /** Runs `fn` while no activation runs (a query needs the sandbox to itself). */
  withActivationLock<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.activationQueue.then(fn);
    this.activationQueue = result.catch(() => undefined);
    return result;
  }

  /** Runs activations until no run has queued jobs, without waiting for activities or time. */
  flush(): Promise<void> {
    return this.withActivationLock(async () => {
      for (let run = this.executions.nextRunWithJobs(); run; run = this.executions.nextRunWithJobs()) {
        await this.activate(run);
      }
    });
  }

  /**
   * Flushes and awaits running activities until everything is quiet. With
   * `flowUntil` (only while the test lets time pass), fake time flows at real speed while activities
   * run, up to that instant, as a time-skipping server's clock does while skipping is locked.
   */
  async settle(flowUntil?: number): Promise<void> {
    for (;;) {
      await this.flush();
      this.throwIfFailed();
      if (this.inFlight.size > 0) {
        await this.waitWhileRunning(flowUntil);
        continue;
      }
      // One macrotask turn lets I/O callbacks that are already due run before time moves.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.inFlight.size === 0 && !this.executions.nextRunWithJobs()) return this.throwIfFailed();
    }
  }

  /** Skips time until `stop()` holds or `deadline` (see {@link skipTime}); calls run one after another. */
  advance(stop: () => boolean | Promise<boolean>, deadline: number | undefined, waitingFor: string): Promise<boolean> {
    const result = this.advanceQueue.then(() => skipTime(this, stop, deadline, waitingFor));
    this.advanceQueue = result.catch(() => undefined);
    return result;
  }

  /** Stops everything: pending retries dropped, late activity results ignored, sandboxes disposed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.withActivationLock(() => this.executions.disposeAll());
    await this.factory.destroy();
  }

  // Waits for an activity to finish. While the test lets time pass, fake time does not stand still
  // meanwhile: once the next due timer (or the deadline) is reached in real time, the clock moves
  // there, so an activity that waits for a workflow timer (a cancellation, say) cannot deadlock.
  private async waitWhileRunning(flowUntil: number | undefined): Promise<void> {
    if (flowUntil === undefined) {
      await this.inFlight.waitForAny();
      return;
    }
    const now = this.clock.now();
    const due = this.clock.nextDueAt();
    const target = Math.min(due ?? Infinity, flowUntil);
    if (!Number.isFinite(target) || (target <= now && due !== target)) {
      await this.inFlight.waitForAny();
      return;
    }
    const finished = await this.inFlight.waitForAny(target - now);
    if (!finished) await this.clock.advanceTo(target);
  }

  private async activate(run: WorkflowRun): Promise<void> {
    try {
      const completion = await run.activate(this.clock.now());
      if (completion.failed) {
        this.failTask(run, new WorkflowTaskFailedError(run.workflowId, run.runId, completion.failed.failure ?? {}));
        return;
      }
      await applyCommands(this, run, completion.successful?.commands ?? []);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.failTask(run, new WorkflowTaskFailedError(run.workflowId, run.runId, { message: `harness error: ${message}` }));
    }
  }

  private failTask(run: WorkflowRun, error: WorkflowTaskFailedError): void {
    this.executions.closeExecution(run.execution, { status: 'taskFailed', error });
    this.fail(error);
  }

  private throwIfFailed(): void {
    if (this.fatalError) throw this.fatalError;
  }
}
