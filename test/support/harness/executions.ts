import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { coresdk } from '@temporalio/proto';
import type { WorkflowFactory } from './bundle';
import { applyParentClosePolicies, type ChildHost, type ExecutionStart } from './children';
import type { FakeClock } from './fake-clock';
import type { RunStart } from './run-start';
import { WorkflowExecution, type ExecutionOutcome } from './workflow-execution';
import { WorkflowRun } from './workflow-run';

/** What the registry needs from the runtime. */
export interface ExecutionHost {
  readonly clock: FakeClock;
  readonly namespace: string;
  readonly taskQueue: string;
  /** Lets the runtime forget a closed run's activities and pending updates. */
  onRunClosed(run: WorkflowRun): void;
}

/**
 * All executions and runs of one harness, like a namespace on the server: starting executions,
 * chaining runs on continue-as-new, and closing them (with parent close policies for children).
 */
export class ExecutionRegistry implements ChildHost {
  private readonly executions = new Map<string, WorkflowExecution>();
  private readonly runs = new Map<string, WorkflowRun>();
  private nextSeed = 1;

  constructor(
    private readonly factory: WorkflowFactory,
    private readonly host: ExecutionHost,
  ) {}

  /** The latest execution with this workflow id, open or closed. */
  find(workflowId: string): WorkflowExecution | undefined {
    return this.executions.get(workflowId);
  }

  /** A run by id. */
  run(runId: string): WorkflowRun | undefined {
    return this.runs.get(runId);
  }

  /** The first open run with queued jobs, if any. */
  nextRunWithJobs(): WorkflowRun | undefined {
    for (const run of this.runs.values()) if (run.hasPendingJobs) return run;
    return undefined;
  }

  /** Starts an execution; its first activation runs on the next flush. */
  async startExecution(start: ExecutionStart): Promise<WorkflowExecution> {
    if (this.executions.get(start.workflowId)?.isOpen) {
      throw new WorkflowExecutionAlreadyStartedError('Workflow execution already started', start.workflowId, start.workflowType);
    }
    const { clock, namespace, taskQueue } = this.host;
    const execution = new WorkflowExecution(start.workflowId, start.workflowType, start.parent);
    const runId = randomUUID();
    const parentRun = start.parent?.run;
    await this.addRun(execution, {
      workflowType: start.workflowType,
      workflowId: start.workflowId,
      runId,
      firstExecutionRunId: runId,
      args: start.args,
      executionStartMs: clock.now(),
      nowMs: clock.now(),
      namespace,
      taskQueue,
      randomnessSeed: this.nextSeed++,
      searchAttributes: start.searchAttributes,
      parent: parentRun && { namespace, workflowId: parentRun.workflowId, runId: parentRun.runId },
      root: parentRun && (parentRun.start.root ?? { workflowId: parentRun.workflowId, runId: parentRun.runId }),
    });
    execution.applySearchAttributes(start.searchAttributes);
    this.executions.set(start.workflowId, execution);
    return execution;
  }

  /** Closes `run` and starts the next run of its execution with the command's arguments. */
  async continueAsNew(run: WorkflowRun, command: coresdk.workflow_commands.IContinueAsNewWorkflowExecution): Promise<void> {
    const { execution } = run;
    const args = command.arguments ?? [];
    run.recordPayloads(args);
    this.closeRun(run);
    if (command.searchAttributes) execution.applySearchAttributes(command.searchAttributes);
    await this.addRun(execution, {
      ...run.start,
      workflowType: command.workflowType || run.workflowType,
      runId: randomUUID(),
      continuedFromExecutionRunId: run.runId,
      args,
      nowMs: this.host.clock.now(),
      randomnessSeed: this.nextSeed++,
      // The server carries search attributes over to the new run unless the command replaces them.
      searchAttributes: { indexedFields: { ...execution.searchAttributePayloads } },
    });
  }

  /** Closes an execution's current run, then the execution with its final outcome. */
  closeExecution(execution: WorkflowExecution, outcome: ExecutionOutcome): void {
    if (!execution.isOpen) return;
    this.closeRun(execution.currentRun);
    execution.close(outcome);
  }

  /** Closes every run and releases the sandboxes. */
  async disposeAll(): Promise<void> {
    for (const run of this.runs.values()) this.closeRun(run);
    for (const run of this.runs.values()) await run.dispose();
  }

  private closeRun(run: WorkflowRun): void {
    if (!run.isOpen) return;
    run.close();
    this.host.onRunClosed(run);
    applyParentClosePolicies(this, run);
  }

  private async addRun(execution: WorkflowExecution, start: RunStart): Promise<void> {
    const run = await WorkflowRun.create(this.factory, execution, start);
    execution.runs.push(run);
    this.runs.set(run.runId, run);
  }
}
