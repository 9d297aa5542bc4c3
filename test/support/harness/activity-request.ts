import type { Info } from '@temporalio/activity';
import { decompileRetryPolicy, type Payload } from '@temporalio/common';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { coresdk, type temporal } from '@temporalio/proto';

/** The workflow run that scheduled an activity and receives its resolution. */
export interface ActivityOwner {
  readonly workflowId: string;
  readonly runId: string;
  readonly workflowType: string;
  readonly namespace: string;
  readonly taskQueue: string;
  readonly isOpen: boolean;
}

/** A schedule(Local)Activity command reduced to what running it needs. */
export interface ActivityRequest {
  readonly seq: number;
  readonly activityId: string;
  readonly activityType: string;
  readonly args: Payload[];
  readonly isLocal: boolean;
  readonly retryPolicy?: temporal.api.common.v1.IRetryPolicy | null;
  readonly cancellationType: coresdk.workflow_commands.ActivityCancellationType;
  readonly heartbeatTimeoutMs?: number;
  readonly startToCloseTimeoutMs?: number;
  readonly scheduleToCloseTimeoutMs?: number;
}

/** Reduces a scheduleActivity or scheduleLocalActivity command to an {@link ActivityRequest}. */
export function activityRequest(
  command: coresdk.workflow_commands.IScheduleActivity | coresdk.workflow_commands.IScheduleLocalActivity,
  isLocal: boolean,
): ActivityRequest {
  return {
    seq: command.seq ?? 0,
    activityId: command.activityId ?? String(command.seq ?? 0),
    activityType: command.activityType ?? '',
    args: command.arguments ?? [],
    isLocal,
    retryPolicy: command.retryPolicy,
    cancellationType: command.cancellationType ?? coresdk.workflow_commands.ActivityCancellationType.TRY_CANCEL,
    heartbeatTimeoutMs: 'heartbeatTimeout' in command ? optionalTsToMs(command.heartbeatTimeout) : undefined,
    startToCloseTimeoutMs: optionalTsToMs(command.startToCloseTimeout),
    scheduleToCloseTimeoutMs: optionalTsToMs(command.scheduleToCloseTimeout),
  };
}

/** The attempt-specific part of an activity's Info. */
export interface AttemptInfo {
  readonly attempt: number;
  readonly scheduledAtMs: number;
  readonly nowMs: number;
  readonly heartbeatDetails: unknown;
}

/** The `Context.current().info` an activity attempt sees, as a worker would fill it in. */
export function activityInfo(owner: ActivityOwner, request: ActivityRequest, attempt: AttemptInfo): Info {
  const taskToken = Buffer.from(`${owner.runId}/${request.seq}/${attempt.attempt}`);
  return {
    activityId: request.activityId,
    activityType: request.activityType,
    attempt: attempt.attempt,
    isLocal: request.isLocal,
    taskQueue: owner.taskQueue,
    taskToken,
    base64TaskToken: taskToken.toString('base64'),
    workflowType: owner.workflowType,
    workflowExecution: { workflowId: owner.workflowId, runId: owner.runId },
    workflowNamespace: owner.namespace,
    activityNamespace: owner.namespace,
    namespace: owner.namespace,
    heartbeatTimeoutMs: request.heartbeatTimeoutMs,
    heartbeatDetails: attempt.heartbeatDetails,
    scheduledTimestampMs: attempt.scheduledAtMs,
    currentAttemptScheduledTimestampMs: attempt.nowMs,
    startToCloseTimeoutMs: request.startToCloseTimeoutMs ?? request.scheduleToCloseTimeoutMs ?? 0,
    scheduleToCloseTimeoutMs: request.scheduleToCloseTimeoutMs ?? 0,
    retryPolicy: decompileRetryPolicy(request.retryPolicy),
    inWorkflow: true,
  };
}
