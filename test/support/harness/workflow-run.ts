import Long from 'long';
import type { Payload } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time';
import { coresdk } from '@temporalio/proto';
import type { Workflow } from '@temporalio/worker/lib/workflow/interface';
import type { TimerHandle } from '../../../src/emulator/clock';
import type { ActivityOwner } from './activity-request';
import type { WorkflowFactory } from './bundle';
import { payloadBytes } from './payloads';
import { initializeWorkflowJob, workflowCreateOptions, type RunStart } from './run-start';
import type { WorkflowExecution } from './workflow-execution';

type Job = coresdk.workflow_activation.IWorkflowActivationJob;
type Completion = coresdk.workflow_completion.IWorkflowActivationCompletion;

// The server's default thresholds for suggesting continue-as-new (dynamic config
// limit.historyCount.suggestContinueAsNew and limit.historySize.suggestContinueAsNew).
const SUGGEST_CONTINUE_AS_NEW_EVENTS = 4 * 1024;
const SUGGEST_CONTINUE_AS_NEW_BYTES = 4 * 1024 * 1024;
// A rough size of an event's envelope without its payloads, for the history size estimate.
const EVENT_OVERHEAD_BYTES = 64;

/** A child workflow started by a run, as the run's bookkeeping sees it. */
export interface ChildLink {
  readonly execution: WorkflowExecution;
  readonly cancellationType: coresdk.child_workflow.ChildWorkflowCancellationType;
  readonly parentClosePolicy: coresdk.child_workflow.ParentClosePolicy;
  resolved: boolean;
}

// Core's job order inside one activation (sdk-core prepare_to_ship_activation): init, patches,
// random seed, signals and updates, everything else, local activity results; queries come alone.
function coreJobRank(job: Job): number {
  if (job.initializeWorkflow) return 0;
  if (job.notifyHasPatch) return 1;
  if (job.updateRandomSeed) return 2;
  if (job.signalWorkflow || job.doUpdate) return 3;
  if (job.resolveActivity?.isLocal) return 5;
  return 4;
}

/**
 * One run of a workflow execution: a sandboxed workflow instance from the real bundle, the jobs
 * waiting for its next activation, and the run's timers, children and history estimate.
 */
export class WorkflowRun implements ActivityOwner {
  /** Approximate number of history events (the server's count, estimated from commands and jobs). */
  historyEvents = 1; // WorkflowExecutionStarted
  /** Largest payload that crossed this run's boundary, in bytes. */
  largestPayloadBytes = 0;
  /** Every payload's data as text, so a test can check that no secret crossed into history. */
  readonly payloadTexts: string[] = [];
  /** Sum of the sizes of all payloads that crossed this run's boundary. */
  totalPayloadBytes = 0;
  /** Workflow timers by command seq. */
  readonly timers = new Map<number, TimerHandle>();
  /** Child workflows by command seq. */
  readonly children = new Map<number, ChildLink>();
  private readonly queue: Job[] = [];
  private open = true;

  private constructor(
    readonly execution: WorkflowExecution,
    readonly start: RunStart,
    private readonly workflow: Workflow,
  ) {}

  /** Creates the sandboxed workflow instance and queues its initializeWorkflow job. */
  static async create(factory: WorkflowFactory, execution: WorkflowExecution, start: RunStart): Promise<WorkflowRun> {
    const workflow = await factory.createWorkflow(workflowCreateOptions(start));
    const run = new WorkflowRun(execution, start, workflow);
    run.recordPayloads(start.args);
    run.enqueue({ initializeWorkflow: initializeWorkflowJob(start) });
    return run;
  }

  get workflowId(): string {
    return this.start.workflowId;
  }
  get runId(): string {
    return this.start.runId;
  }
  get workflowType(): string {
    return this.start.workflowType;
  }
  get namespace(): string {
    return this.start.namespace;
  }
  get taskQueue(): string {
    return this.start.taskQueue;
  }
  /** False once the run has closed (completed, failed, cancelled, continued as new, terminated). */
  get isOpen(): boolean {
    return this.open;
  }
  /** True when jobs wait for the next activation. */
  get hasPendingJobs(): boolean {
    return this.open && this.queue.length > 0;
  }

  /** Queues a job for the next activation (dropped once the run has closed, as the server would). */
  enqueue(job: Job): void {
    if (this.open) this.queue.push(job);
  }

  /** Records payloads crossing the workflow boundary for the size figures and content checks. */
  recordPayloads(payloads: Iterable<Payload> | null | undefined): void {
    for (const payload of payloads ?? []) {
      if (payload.data) this.payloadTexts.push(Buffer.from(payload.data).toString('utf8'));
      const bytes = payloadBytes(payload);
      this.largestPayloadBytes = Math.max(this.largestPayloadBytes, bytes);
      this.totalPayloadBytes += bytes;
    }
  }

  /** Runs one activation with all queued jobs, in Core's order, at fake time `nowMs`. */
  async activate(nowMs: number): Promise<Completion> {
    const jobs = this.queue.splice(0).sort((a, b) => coreJobRank(a) - coreJobRank(b));
    this.historyEvents += 2; // WorkflowTaskScheduled, WorkflowTaskStarted
    const historySizeBytes = this.totalPayloadBytes + this.historyEvents * EVENT_OVERHEAD_BYTES;
    const activation = coresdk.workflow_activation.WorkflowActivation.fromObject({
      runId: this.runId,
      timestamp: msToTs(nowMs),
      isReplaying: false,
      historyLength: this.historyEvents,
      historySizeBytes: Long.fromNumber(historySizeBytes, true),
      continueAsNewSuggested:
        this.historyEvents >= SUGGEST_CONTINUE_AS_NEW_EVENTS || historySizeBytes >= SUGGEST_CONTINUE_AS_NEW_BYTES,
      jobs,
    });
    const completion = await this.workflow.activate(activation);
    // Sink calls (workflow logger output) are buffered per activation; drop them so they do not pile up.
    await this.workflow.getAndResetSinkCalls();
    this.historyEvents += 1; // WorkflowTaskCompleted
    return completion;
  }

  /** Answers one query in an activation of its own, as Core sends queries. */
  async query(query: coresdk.workflow_activation.IQueryWorkflow): Promise<Completion> {
    const activation = coresdk.workflow_activation.WorkflowActivation.fromObject({
      runId: this.runId,
      jobs: [{ queryWorkflow: query }],
    });
    const completion = await this.workflow.activate(activation);
    await this.workflow.getAndResetSinkCalls();
    return completion;
  }

  /** Marks the run closed: queued jobs are dropped and its timers cancelled. */
  close(): void {
    this.open = false;
    this.queue.length = 0;
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
  }

  /** Releases the sandbox. The run must not be activated (or queried) afterwards. */
  async dispose(): Promise<void> {
    this.close();
    await this.workflow.dispose();
  }
}
