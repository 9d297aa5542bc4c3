import type { Payload } from '@temporalio/common';
import { coresdk, type temporal } from '@temporalio/proto';
import { childCancelled, childFailed, childTerminated, type ChildRef } from './core-failures';
import type { ExecutionOutcome, ParentLink, WorkflowExecution } from './workflow-execution';
import type { ChildLink, WorkflowRun } from './workflow-run';

const { ChildWorkflowCancellationType, ParentClosePolicy, StartChildWorkflowExecutionFailedCause } = coresdk.child_workflow;
type ChildResult = coresdk.child_workflow.IChildWorkflowResult;

/** What a new execution (top-level or child) is started with. */
export interface ExecutionStart {
  readonly workflowType: string;
  readonly workflowId: string;
  readonly args: Payload[];
  readonly parent?: ParentLink;
  readonly searchAttributes?: temporal.api.common.v1.ISearchAttributes | null;
}

/** What child workflow handling needs from the harness runtime. */
export interface ChildHost {
  find(workflowId: string): WorkflowExecution | undefined;
  startExecution(start: ExecutionStart): Promise<WorkflowExecution>;
  closeExecution(execution: WorkflowExecution, outcome: ExecutionOutcome): void;
}

function childRef(link: ChildLink, parent: WorkflowRun): ChildRef {
  const { execution } = link;
  return {
    namespace: parent.namespace,
    workflowType: execution.workflowType,
    workflowId: execution.workflowId,
    runId: execution.runs[0]?.runId ?? '',
  };
}

// What Core hands the parent when the child closes (sdk-core child_workflow_state_machine).
function childResult(link: ChildLink, parent: WorkflowRun, outcome: ExecutionOutcome): ChildResult | undefined {
  switch (outcome.status) {
    case 'completed':
      return { completed: { result: outcome.payload } };
    case 'failed':
      return { failed: { failure: childFailed(childRef(link, parent), outcome.failure) } };
    case 'cancelled':
      return { cancelled: { failure: childCancelled(childRef(link, parent)) } };
    case 'terminated':
      return { failed: { failure: childTerminated(childRef(link, parent)) } };
    case 'taskFailed':
      return undefined; // The child is stuck, as with a real worker; the harness reports the task failure.
  }
}

/** Starts a child in the same harness and resolves its start at once and its result when it closes. */
export async function startChild(
  host: ChildHost,
  parent: WorkflowRun,
  command: coresdk.workflow_commands.IStartChildWorkflowExecution,
): Promise<void> {
  const seq = command.seq ?? 0;
  const workflowId = command.workflowId ?? '';
  const workflowType = command.workflowType ?? '';
  parent.historyEvents += 1; // StartChildWorkflowExecutionInitiated
  if (host.find(workflowId)?.isOpen) {
    parent.historyEvents += 1; // StartChildWorkflowExecutionFailed
    parent.enqueue({
      resolveChildWorkflowExecutionStart: {
        seq,
        failed: { workflowId, workflowType, cause: StartChildWorkflowExecutionFailedCause.START_CHILD_WORKFLOW_EXECUTION_FAILED_CAUSE_WORKFLOW_ALREADY_EXISTS },
      },
    });
    return;
  }
  parent.recordPayloads(command.input);
  const execution = await host.startExecution({
    workflowType,
    workflowId,
    args: command.input ?? [],
    parent: { run: parent, seq },
    searchAttributes: command.searchAttributes,
  });
  const link: ChildLink = {
    execution,
    cancellationType: command.cancellationType ?? ChildWorkflowCancellationType.ABANDON,
    parentClosePolicy: command.parentClosePolicy ?? ParentClosePolicy.PARENT_CLOSE_POLICY_UNSPECIFIED,
    resolved: false,
  };
  parent.children.set(seq, link);
  parent.historyEvents += 1; // ChildWorkflowExecutionStarted
  parent.enqueue({ resolveChildWorkflowExecutionStart: { seq, succeeded: { runId: execution.currentRun.runId } } });
  execution.onClose((outcome) => {
    const result = childResult(link, parent, outcome);
    if (link.resolved || !result || !parent.isOpen) return;
    link.resolved = true;
    if (outcome.status === 'completed') parent.recordPayloads(outcome.payload ? [outcome.payload] : []);
    parent.historyEvents += 1; // ChildWorkflowExecution{Completed,Failed,Canceled,Terminated}
    parent.enqueue({ resolveChildWorkflowExecution: { seq, result } });
  });
}

/**
 * Cancels a child per its cancellation type, as Core does: ABANDON sends nothing; TRY_CANCEL and
 * WAIT_CANCELLATION_REQUESTED resolve the parent at once; WAIT_CANCELLATION_COMPLETED waits for the
 * child to close and reports how it really ended.
 */
export function cancelChild(parent: WorkflowRun, command: coresdk.workflow_commands.ICancelChildWorkflowExecution): void {
  const seq = command.childWorkflowSeq ?? 0;
  const link = parent.children.get(seq);
  if (!link || link.resolved) return;
  if (link.cancellationType !== ChildWorkflowCancellationType.ABANDON && link.execution.isOpen) {
    parent.historyEvents += 2; // RequestCancelExternal...Initiated, ExternalWorkflowExecutionCancelRequested
    link.execution.currentRun.historyEvents += 1; // WorkflowExecutionCancelRequested
    link.execution.currentRun.enqueue({ cancelWorkflow: { reason: command.reason ?? '' } });
  }
  if (link.cancellationType !== ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED) {
    link.resolved = true;
    parent.enqueue({ resolveChildWorkflowExecution: { seq, result: { cancelled: { failure: childCancelled(childRef(link, parent)) } } } });
  }
}

/** Applies each open child's parent close policy when its parent run closes (default: terminate). */
export function applyParentClosePolicies(host: ChildHost, parent: WorkflowRun): void {
  for (const link of parent.children.values()) {
    const child = link.execution;
    if (!child.isOpen) continue;
    if (link.parentClosePolicy === ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON) continue;
    if (link.parentClosePolicy === ParentClosePolicy.PARENT_CLOSE_POLICY_REQUEST_CANCEL) {
      child.currentRun.historyEvents += 1;
      child.currentRun.enqueue({ cancelWorkflow: { reason: 'parent closed' } });
    } else {
      host.closeExecution(child, { status: 'terminated', reason: 'Terminated by parent close policy' });
    }
  }
}
