import { tsToMs } from '@temporalio/common/lib/time';
import type { coresdk } from '@temporalio/proto';
import { activityRequest } from './activity-request';
import type { ActivityRunner } from './activity-runner';
import { cancelChild, startChild } from './children';
import { externalWorkflowNotFound } from './core-failures';
import { WorkflowUpdateFailedError } from './errors';
import type { FakeClock } from './fake-clock';
import { fromPayload } from './payloads';
import type { ExecutionRegistry } from './executions';
import type { WorkflowRun } from './workflow-run';

type Command = coresdk.workflow_commands.IWorkflowCommand;

/** An update sent through a handle, waiting for the workflow's response. */
export interface PendingUpdate {
  readonly name: string;
  readonly run: WorkflowRun;
  accepted: boolean;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** What applying commands needs from the harness runtime. */
export interface CommandHost {
  readonly clock: FakeClock;
  readonly activities: ActivityRunner;
  readonly executions: ExecutionRegistry;
  readonly updates: Map<string, PendingUpdate>;
  /** Custom search attributes a server would have registered, when the setup declares them. */
  readonly declaredSearchAttributes?: ReadonlySet<string>;
}

function isTerminal(command: Command): boolean {
  return Boolean(
    command.completeWorkflowExecution ||
      command.failWorkflowExecution ||
      command.cancelWorkflowExecution ||
      command.continueAsNewWorkflowExecution,
  );
}

/**
 * Applies the commands of a successful activation the way Core and the server would. Commands that
 * close the run go last, so update responses and the like sent in the same activation still count.
 */
export async function applyCommands(host: CommandHost, run: WorkflowRun, commands: readonly Command[]): Promise<void> {
  for (const command of commands.filter((command) => !isTerminal(command))) {
    await applyCommand(host, run, command);
  }
  const terminal = commands.find(isTerminal);
  if (terminal && run.isOpen) await applyCommand(host, run, terminal);
}

async function applyCommand(host: CommandHost, run: WorkflowRun, command: Command): Promise<void> {
  if (command.startTimer) {
    const seq = command.startTimer.seq ?? 0;
    run.historyEvents += 1; // TimerStarted
    const timer = host.clock.setTimeout(() => {
      run.timers.delete(seq);
      run.historyEvents += 1; // TimerFired
      run.enqueue({ fireTimer: { seq } });
    }, tsToMs(command.startTimer.startToFireTimeout));
    run.timers.set(seq, timer);
  } else if (command.cancelTimer) {
    const seq = command.cancelTimer.seq ?? 0;
    run.timers.get(seq)?.cancel();
    run.timers.delete(seq);
    run.historyEvents += 1; // TimerCanceled
  } else if (command.scheduleActivity || command.scheduleLocalActivity) {
    const isLocal = !command.scheduleActivity;
    const request = activityRequest((command.scheduleActivity ?? command.scheduleLocalActivity)!, isLocal);
    run.recordPayloads(request.args);
    if (!isLocal) run.historyEvents += 1; // ActivityTaskScheduled (local ones only leave a marker)
    host.activities.schedule(run, request);
  } else if (command.requestCancelActivity || command.requestCancelLocalActivity) {
    const seq = (command.requestCancelActivity ?? command.requestCancelLocalActivity)?.seq ?? 0;
    if (command.requestCancelActivity) run.historyEvents += 1; // ActivityTaskCancelRequested
    host.activities.requestCancel(run, seq);
  } else if (command.completeWorkflowExecution) {
    const payload = command.completeWorkflowExecution.result ?? undefined;
    run.recordPayloads(payload ? [payload] : []);
    run.historyEvents += 1;
    host.executions.closeExecution(run.execution, { status: 'completed', result: fromPayload(payload), payload });
  } else if (command.failWorkflowExecution) {
    run.historyEvents += 1;
    host.executions.closeExecution(run.execution, { status: 'failed', failure: command.failWorkflowExecution.failure ?? {} });
  } else if (command.cancelWorkflowExecution) {
    run.historyEvents += 1;
    host.executions.closeExecution(run.execution, {
      status: 'cancelled',
      failure: { message: 'Workflow execution cancelled', canceledFailureInfo: { details: command.cancelWorkflowExecution.details } },
    });
  } else if (command.continueAsNewWorkflowExecution) {
    run.historyEvents += 1;
    await host.executions.continueAsNew(run, command.continueAsNewWorkflowExecution);
  } else if (command.updateResponse) {
    applyUpdateResponse(host, run, command.updateResponse);
  } else if (command.upsertWorkflowSearchAttributes) {
    validateSearchAttributes(host, run, command.upsertWorkflowSearchAttributes);
    run.historyEvents += 1;
    run.execution.applySearchAttributes(command.upsertWorkflowSearchAttributes.searchAttributes);
  } else if (command.setPatchMarker || command.modifyWorkflowProperties) {
    run.historyEvents += 1; // MarkerRecorded / WorkflowPropertiesModified
  } else if (command.startChildWorkflowExecution) {
    await startChild(host.executions, run, command.startChildWorkflowExecution);
  } else if (command.cancelChildWorkflowExecution) {
    cancelChild(run, command.cancelChildWorkflowExecution);
  } else if (command.requestCancelExternalWorkflowExecution) {
    requestCancelExternal(host, run, command.requestCancelExternalWorkflowExecution);
  } else if (command.signalExternalWorkflowExecution) {
    signalExternal(host, run, command.signalExternalWorkflowExecution);
  } else if (command.cancelSignalWorkflow || command.respondToQuery) {
    // Signals are delivered at once, so there is nothing left to cancel; query answers are read by
    // the query call itself.
  } else {
    throw new Error(`The workflow harness does not support the command ${JSON.stringify(Object.keys(command))}`);
  }
}

// A server fails the workflow task that upserts an unregistered search attribute.
function validateSearchAttributes(
  host: CommandHost,
  run: WorkflowRun,
  upsert: coresdk.workflow_commands.IUpsertWorkflowSearchAttributes,
): void {
  const declared = host.declaredSearchAttributes;
  if (!declared) return;
  const unknown = Object.keys(upsert.searchAttributes?.indexedFields ?? {}).filter((name) => !declared.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `Workflow ${run.workflowId} upserted search attributes the scenario setup does not declare: ${unknown.join(', ')}`,
    );
  }
}

function applyUpdateResponse(host: CommandHost, run: WorkflowRun, response: coresdk.workflow_commands.IUpdateResponse): void {
  const id = response.protocolInstanceId ?? '';
  const pending = host.updates.get(id);
  if (!pending) return;
  if (response.accepted) {
    pending.accepted = true;
    run.historyEvents += 1; // WorkflowExecutionUpdateAccepted
    return;
  }
  host.updates.delete(id);
  if (response.rejected) {
    // A validator rejection leaves no trace in history; a failed handler completes the update.
    if (pending.accepted) run.historyEvents += 1;
    pending.reject(WorkflowUpdateFailedError.fromFailure(pending.name, response.rejected));
  } else {
    const payload = response.completed ?? undefined;
    run.recordPayloads(payload ? [payload] : []);
    run.historyEvents += 1; // WorkflowExecutionUpdateCompleted
    pending.resolve(fromPayload(payload));
  }
}

function requestCancelExternal(
  host: CommandHost,
  run: WorkflowRun,
  command: coresdk.workflow_commands.IRequestCancelExternalWorkflowExecution,
): void {
  const seq = command.seq ?? 0;
  const target = host.executions.find(command.workflowExecution?.workflowId ?? '');
  run.historyEvents += 2; // RequestCancelExternal...Initiated, ExternalWorkflowExecutionCancelRequested
  if (!target?.isOpen) {
    run.enqueue({ resolveRequestCancelExternalWorkflow: { seq, failure: externalWorkflowNotFound('cancel') } });
    return;
  }
  target.currentRun.historyEvents += 1; // WorkflowExecutionCancelRequested
  target.currentRun.enqueue({ cancelWorkflow: { reason: command.reason ?? '' } });
  run.enqueue({ resolveRequestCancelExternalWorkflow: { seq } });
}

function signalExternal(
  host: CommandHost,
  run: WorkflowRun,
  command: coresdk.workflow_commands.ISignalExternalWorkflowExecution,
): void {
  const seq = command.seq ?? 0;
  const targetId = command.workflowExecution?.workflowId ?? command.childWorkflowId ?? '';
  const target = host.executions.find(targetId);
  run.historyEvents += 2; // SignalExternal...Initiated, ExternalWorkflowExecutionSignaled
  run.recordPayloads(command.args);
  if (!target?.isOpen) {
    run.enqueue({ resolveSignalExternalWorkflow: { seq, failure: externalWorkflowNotFound('signal') } });
    return;
  }
  const targetRun = target.currentRun;
  targetRun.historyEvents += 1; // WorkflowExecutionSignaled
  targetRun.recordPayloads(command.args);
  targetRun.enqueue({
    signalWorkflow: { signalName: command.signalName, input: command.args, headers: command.headers, identity: run.workflowId },
  });
  run.enqueue({ resolveSignalExternalWorkflow: { seq } });
}
