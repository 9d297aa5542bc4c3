import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { systemClock, type Clock } from '../../src/emulator/clock';
import { WaitTimeoutError } from './harness/errors';
import { loadWorkflowBundle } from './harness/bundle';
import type { ScenarioEnv, ScenarioStartOptions, WaitUntilOptions } from './scenario-env';
import { DEFAULT_WAIT_TIMEOUT_MS, resolveActivities, type ScenarioSetup } from './scenario-setup';
import type { ServerConnection } from './server/connection';
import { ServerWorkflowHandle } from './server/handle';

export { findTemporalServer, PROBE_RESULT_VARIABLE, type ServerAvailability, type ServerPlan } from './server/discovery';
export { acquireServer, releaseServer, type ServerConnection } from './server/connection';

/** How often `waitUntil` re-checks its predicate against a real server. */
const POLL_INTERVAL_MS = 100;

/**
 * The real-server driver: a Worker running the same workflow bundle and activities on a task queue
 * of its own, and a client on the same connection. Time is real (`sleep` really waits).
 */
export class ServerScenarioEnv implements ScenarioEnv {
  readonly kind = 'server';
  readonly clock: Clock = systemClock;

  private constructor(
    private readonly connection: ServerConnection,
    private readonly taskQueue: string,
    private readonly worker: Worker,
    private readonly running: Promise<void>,
  ) {}

  /** Starts a worker for `setup` on a fresh task queue of the connected server. */
  static async create(connection: ServerConnection, setup: ScenarioSetup): Promise<ServerScenarioEnv> {
    const taskQueue = `scenario-${randomUUID()}`;
    const { code } = await loadWorkflowBundle(setup.workflowsPath);
    const worker = await Worker.create({
      connection: connection.env.nativeConnection,
      namespace: connection.namespace,
      taskQueue,
      workflowBundle: { code },
      activities: resolveActivities(setup, systemClock),
    });
    return new ServerScenarioEnv(connection, taskQueue, worker, worker.run());
  }

  async start<R = unknown>(workflowType: string, options: ScenarioStartOptions): Promise<ServerWorkflowHandle<R>> {
    const { client } = this.connection.env;
    const handle = await client.workflow.start(workflowType, {
      workflowId: options.workflowId,
      taskQueue: this.taskQueue,
      args: [...(options.args ?? [])],
    });
    return new ServerWorkflowHandle<R>(client, handle);
  }

  getHandle<R = unknown>(workflowId: string): ServerWorkflowHandle<R> {
    const { client } = this.connection.env;
    return new ServerWorkflowHandle<R>(client, client.workflow.getHandle(workflowId));
  }

  async sleep(ms: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
  }

  async waitUntil(predicate: () => boolean | Promise<boolean>, options: WaitUntilOptions = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    while (!(await predicate())) {
      if (Date.now() >= deadline) {
        const description = options.description ?? 'the condition';
        throw new WaitTimeoutError(`waitUntil timed out after ${timeoutMs} ms of server time waiting for ${description}`);
      }
      await this.sleep(Math.min(POLL_INTERVAL_MS, Math.max(0, deadline - Date.now())));
    }
  }

  /** Stops the worker (its run loop must end cleanly). */
  async close(): Promise<void> {
    // A worker that already stopped (it failed) refuses shutdown(); its run promise reports why.
    if (this.worker.getState() === 'RUNNING') this.worker.shutdown();
    await this.running;
  }
}
