import Long from 'long';
import { TypedSearchAttributes, type Payload } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time';
import type { coresdk, temporal } from '@temporalio/proto';
import type { WorkflowCreateOptions } from '@temporalio/worker/lib/workflow/interface';
import { createUnsafeRandomSource } from '@temporalio/workflow/lib/random-helpers';

/** The workflow task timeout the harness reports; the server's default. */
const WORKFLOW_TASK_TIMEOUT_MS = 10_000;

/** Everything needed to start one run of a workflow execution. */
export interface RunStart {
  readonly workflowType: string;
  readonly workflowId: string;
  readonly runId: string;
  readonly firstExecutionRunId: string;
  readonly continuedFromExecutionRunId?: string;
  readonly args: Payload[];
  readonly executionStartMs: number;
  readonly nowMs: number;
  readonly namespace: string;
  readonly taskQueue: string;
  readonly randomnessSeed: number;
  readonly searchAttributes?: temporal.api.common.v1.ISearchAttributes | null;
  readonly parent?: { readonly namespace: string; readonly workflowId: string; readonly runId: string };
  readonly root?: { readonly workflowId: string; readonly runId: string };
}

/** The options the SDK's creator needs, built the way the Worker builds them from the first activation. */
export function workflowCreateOptions(start: RunStart): WorkflowCreateOptions {
  return {
    info: {
      workflowId: start.workflowId,
      runId: start.runId,
      workflowType: start.workflowType,
      searchAttributes: {},
      typedSearchAttributes: new TypedSearchAttributes(),
      parent: start.parent,
      root: start.root,
      taskQueue: start.taskQueue,
      namespace: start.namespace,
      firstExecutionRunId: start.firstExecutionRunId,
      originalExecutionRunId: start.runId,
      continuedFromExecutionRunId: start.continuedFromExecutionRunId,
      startTime: new Date(start.executionStartMs),
      runStartTime: new Date(start.nowMs),
      taskTimeoutMs: WORKFLOW_TASK_TIMEOUT_MS,
      attempt: 1,
      historyLength: 1,
      historySize: 0,
      continueAsNewSuggested: false,
      targetWorkerDeploymentVersionChanged: false,
      unsafe: {
        // initRuntime replaces `now` and `random` inside the sandbox; these are placeholders.
        now: () => start.nowMs,
        isReplaying: false,
        isReplayingHistoryEvents: false,
        random: createUnsafeRandomSource(Math.random),
      },
    },
    randomnessSeed: seed(start).toBytes(),
    now: start.nowMs,
    showStackTraceSources: false,
  };
}

/** The initializeWorkflow job of the run's first activation. */
export function initializeWorkflowJob(start: RunStart): coresdk.workflow_activation.IInitializeWorkflow {
  return {
    workflowType: start.workflowType,
    workflowId: start.workflowId,
    arguments: start.args,
    randomnessSeed: seed(start),
    firstExecutionRunId: start.firstExecutionRunId,
    continuedFromExecutionRunId: start.continuedFromExecutionRunId ?? '',
    attempt: 1,
    startTime: msToTs(start.executionStartMs),
    searchAttributes: start.searchAttributes,
    parentWorkflowInfo: start.parent,
    rootWorkflow: start.root,
    workflowTaskTimeout: msToTs(WORKFLOW_TASK_TIMEOUT_MS),
  };
}

function seed(start: RunStart): Long {
  return Long.fromNumber(start.randomnessSeed, true);
}
