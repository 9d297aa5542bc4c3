import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  ContinueAsNew,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  setCurrentDetails,
  patched,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { CreatedResearchTask, EndedTaskOutputs, TaskSnapshot } from '../activities/types';
import type { CheckpointType, ResearchMode, TaskStatus } from '../api/schemas';
import { shortCalls, storeJobs } from './activity-proxies';
import { failureMessage, failureType } from './failure-info';
import { FailureType } from '../domain/failures';
import { contextMetadata, storageKey } from '../domain/ids';
import { continueAsNewAfterHandlers, handlersFinished, historyIsFull } from './continue-as-new';
import { aimNextLook, readRetryDelayMs } from './polling';
import { PublishedAttributes } from './published-attributes';
import { createTaskDurably } from './create-task';
import { untilOperatorFixes, type OperatorGate } from './operator-remedy';
import { DeepResearchIdKey, ResearchCostUsdKey, ResearchModeKey, ResearchPipelineKey, ResearchStatusKey } from './search-attributes';
import { described } from './definitions';
import { messageSchemas } from './message-schemas';
import { itemAdoptedSignal, itemSettledSignal, itemWaitingSignal } from './pipeline-definitions';
import type { ItemSettledReport, ItemWaitingNotice } from '../domain/pipeline-types';
import { handleTaskMessages, TaskInbox } from './task-handlers';
import { ResearchTaskModel } from './task-state';
import type { ResearchTaskInput, WaitReason } from './types';
import type { StoredOutputs } from '../domain/artifacts';
import type { ResearchTaskResult } from '../domain/research-types';

/** 404s in a row after which a task counts as gone (the first may come while the service catches up). */
const NOT_FOUND_READS_TO_GIVE_UP = 5;

/**
 * One DeepResearch task as a durable workflow: create it (never twice), follow it by polling and
 * webhooks, let people answer its checkpoints and send instructions, store its outputs, and return
 * references. Cancelling the workflow cancels the task and stores its partial output, then ends the
 * workflow Canceled (see `cancelledEnding`); the state query keeps the outcome.
 */
export async function researchTaskWorkflow(input: ResearchTaskInput): Promise<ResearchTaskResult> {
  // A pipeline item an earlier execution of its run started reports its outcome to the run that adopted
  // it (a run cannot wait on a child it did not start); the run's workflow id names whichever run is current.
  const reporting: Reporting = { to: input.carried?.reportTo };
  setHandler(
    itemAdoptedSignal,
    (payload) => {
      const adopted = messageSchemas().itemAdoptedNotice.safeParse(payload);
      if (adopted.success) reporting.to = adopted.data.run;
    },
    described(itemAdoptedSignal),
  );
  const report = async (outcome: Omit<ItemSettledReport, 'item' | 'workflowId'>, to = reporting.to): Promise<void> => {
    const item = input.context?.item;
    if (to === undefined || item === undefined) return;
    await CancellationScope.nonCancellable(() =>
      getExternalWorkflowHandle(to)
        .signal(itemSettledSignal, { item, workflowId: workflowInfo().workflowId, ...outcome })
        .catch(() => undefined),
    );
  };
  let result: ResearchTaskResult;
  try {
    result = await followResearchTask(input, reporting);
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    if (isCancellation(error)) await report({ status: 'cancelled' });
    else {
      const direct = error instanceof ApplicationFailure ? error : undefined;
      const details = direct?.details?.[0] as { outputs?: StoredOutputs } | undefined;
      const type = direct ? (direct.type ?? undefined) : failureType(error);
      await report({
        status: 'failed',
        error: failureMessage(error),
        ...(type ? { failureType: type } : {}),
        ...(details?.outputs ? { outputs: details.outputs } : {}),
      });
    }
    throw error;
  }
  // Cancelled by request: the cleanup is done (the task cancelled at the service, its partial outputs
  // stored); the workflow ends Canceled, as Temporal's UI and clients expect. The run that awaits it
  // learns the cost and outputs from the report (a Canceled workflow carries no result).
  if (result.status === 'cancelled' && CancellationScope.current().consideredCancelled && patched('end-canceled')) {
    await report({ status: 'cancelled', result }, reporting.to ?? workflowInfo().parent?.workflowId);
    throw cancelledEnding(result);
  }
  await report({ status: 'completed', result });
  return result;
}

/**
 * How a research task cancelled by request ends: its message says what the state query says (the task
 * cancelled at the service, or left open there: `cancel_refused`), and its details keep the result for
 * the worker's own interceptors (details of a cancel do not reach the server).
 */
export function cancelledEnding(result: ResearchTaskResult): CancelledFailure {
  const what = result.openAtService
    ? `cancel_refused: ${result.openAtService.detail}`
    : `cancelled: the task was cancelled at the service${result.outputs.report ? `, its partial report stored at ${result.outputs.report.uri}` : ''}`;
  return new CancelledFailure(`research task ${result.deepresearchId} ${what}; cost ${(result.cost ?? 0).toFixed(2)} USD`, [result]);
}

/** What the UI shows beside a poll's timer: why the workflow waits and for how long at most. */
export function pollTimerSummary(status: string, delayMs: number): string {
  const seconds = Math.round(delayMs / 1000);
  const why = status === 'awaiting_input' || status === 'paused' ? `the task waits for a person (${status})` : `the task is ${status}`;
  return `next status read in ${seconds} s: ${why}; a webhook or an answer reads sooner`;
}

/** Where an adopted item reports its outcome (see `itemAdoptedSignal`). */
interface Reporting {
  to: string | undefined;
}

async function followResearchTask(input: ResearchTaskInput, reporting: Reporting): Promise<ResearchTaskResult> {
  const { carried } = input;
  const startedAt = carried?.startedAt ?? Date.now();
  const mode: ResearchMode = input.request.mode ?? input.request.model ?? 'standard';
  const hitl = input.request.hitl ?? {};
  const enabled = (['planning_questions', 'plan_review', 'source_review', 'outline_review'] as const).filter((type: CheckpointType) => hitl[type] === true);
  const model = carried ? ResearchTaskModel.restore(mode, enabled, carried.model) : new ResearchTaskModel(mode, enabled);
  const inbox = new TaskInbox();
  inbox.resumeRequested = carried?.resumeRequested ?? false;
  let webhookConfigured: boolean;
  const attributes = new PublishedAttributes();
  /** Status reads that failed for good in a row (see readFollowing). */
  let readFailures = 0;

  // An item of a pipeline run tells its run when it starts and stops waiting for a person, so the run's
  // progress can say who waits for whom (the run cannot see its children's state otherwise).
  const parent = workflowInfo().parent;
  const item = input.context?.item;
  let lastWaiting: ItemWaitingNotice['waiting'] = null;
  const tellParent = (): void => {
    if (!parent || !item) return;
    const waiting =
      model.status === 'awaiting_input' || model.status === 'paused'
        ? 'checkpoint'
        : model.waitingFor === 'credits_exhausted' || model.waitingFor === 'operator'
          ? 'operator'
          : null;
    if (waiting === lastWaiting) return;
    lastWaiting = waiting;
    // A run that has closed (or another kind of parent) may not take it: the notice is only a hint.
    getExternalWorkflowHandle(parent.workflowId)
      .signal(itemWaitingSignal, { item, waiting })
      .catch(() => undefined);
  };

  const publish = (): void => {
    tellParent();
    // One event per change of status or cost, not per poll; the task id rides along.
    attributes.upsert(
      [
        { key: ResearchStatusKey, value: model.status },
        ...(model.cost !== undefined ? [{ key: ResearchCostUsdKey, value: model.cost }] : []),
        ...(model.deepresearchId ? [{ key: DeepResearchIdKey, value: model.deepresearchId }] : []),
      ],
      { kind: 'when', keys: [ResearchStatusKey.name, ResearchCostUsdKey.name] },
    );
    setCurrentDetails(model.details());
  };

  handleTaskMessages({ model, inbox, publish });

  attributes.upsert([{ key: ResearchModeKey, value: mode }, ...(input.context?.pipeline ? [{ key: ResearchPipelineKey, value: input.context.pipeline }] : [])]);
  publish();

  // While an operator fixes something, the state shows what; afterwards, what the workflow was doing.
  const operatorGate = (then: WaitReason): OperatorGate => ({
    show: (remedy) => {
      model.waitingFor = remedy?.waitingFor ?? then;
      model.detail = remedy?.detail;
      publish();
    },
    resumed: () => inbox.resumeRequested,
    consume: () => void inbox.takeResume(),
  });

  const keyPrefix = `research/${storageKey(workflowInfo().workflowId)}`;
  let created: CreatedResearchTask | undefined;
  /** Outputs stored by the read that confirmed a webhook's announcement of the end. */
  let collected: StoredOutputs | undefined;
  let taskSeenAt = startedAt;
  try {
    created =
      carried?.created ??
      (input.existingTask !== undefined ? await existing(input.existingTask) : undefined) ??
      (await createTaskDurably({
        request: { ...input.request, metadata: { ...input.request.metadata, ...contextMetadata(input.context) } },
        requestKey: `${workflowInfo().workflowId}#${workflowInfo().firstExecutionRunId}`,
        model,
        publish,
        operator: operatorGate('creating'),
        takeDecision: () => inbox.takeDecision(),
        hasDecision: () => inbox.decision !== undefined,
        reconcileDelaysMs: input.polling?.reconcileDelaysMs,
        ...(input.polling?.createDecisionWaitMs !== undefined ? { decisionWaitMs: input.polling.createDecisionWaitMs } : {}),
      }));
    webhookConfigured = created.webhookConfigured;
    // The schedule counts from when the task began at the service, which is when its create answered, not
    // when the workflow started (a create that took long, or needed reconciling, would shift every poll).
    taskSeenAt = carried ? (carried.taskSeenAt ?? startedAt) : Date.now();
    if (!carried && input.existingTask === undefined) {
      model.deepresearchId = created.deepresearchId;
      model.status = created.status;
      model.waitingFor = 'research';
      model.detail = undefined;
    }
    publish();

    /** The last status read's round trip, and the time (since creation) the last one was aimed at. */
    let readLagMs = 0;
    let lastAimMs = 0;
    const waitForNextLook = async (status: TaskStatus): Promise<void> => {
      const next = aimNextLook({
        mode,
        status,
        elapsedMs: Date.now() - taskSeenAt,
        webhookConfigured,
        checkpointsAhead: model.checkpointsAhead,
        overrides: input.polling,
        leadMs: readLagMs,
        lastAimMs,
      });
      lastAimMs = next.aimMs;
      await condition(() => inbox.wake, next.delayMs, { summary: pollTimerSummary(status, next.delayMs) });
    };
    // A task just created is queued or running, as the creation's answer said: reading it at once would
    // only say so again. The first look waits for the schedule (or a webhook, or an answer).
    if (!carried && input.existingTask === undefined && (created.status === 'queued' || created.status === 'running') && patched('first-look-on-schedule')) {
      await waitForNextLook(created.status);
    }

    while (!model.terminal) {
      const deepresearchId = created.deepresearchId;
      let snapshot: TaskSnapshot | undefined;
      // A signed webhook said the task has ended: one read both confirms it and stores the outputs.
      if (inbox.endAnnounced && patched('store-on-webhook')) {
        inbox.endAnnounced = false;
        inbox.wake = false;
        const ended = await readEnded(deepresearchId);
        collected = ended?.outputs;
        snapshot = ended?.snapshot;
      }
      if (snapshot === undefined) {
        // Cleared before the poll, not after: a webhook or answer arriving while it runs must wake the next one.
        inbox.wake = false;
        const askedAt = Date.now();
        snapshot = await readFollowing(deepresearchId);
        if (snapshot !== undefined) readLagMs = Date.now() - askedAt;
      }
      if (snapshot !== undefined) {
        model.polls++;
        model.apply(snapshot, Date.now());
        publish();
        if (model.terminal) break;
        await waitForNextLook(snapshot.status);
      }
      // A task waiting weeks for an answer must not fill its history: go on in a fresh run, where it stands.
      if (historyIsFull(input.continueAsNewAfterEvents)) {
        const task = created;
        await continueAsNewAfterHandlers<typeof researchTaskWorkflow>(() => ({
          ...input,
          carried: {
            created: task,
            startedAt,
            taskSeenAt,
            model: model.carry(),
            resumeRequested: inbox.resumeRequested,
            ...(reporting.to !== undefined ? { reportTo: reporting.to } : {}),
          },
        }));
      }
    }
  } catch (error) {
    if (!isCancellation(error) || (created === undefined && model.deepresearchId === undefined)) {
      await handlersFinished();
      throw error;
    }
    return await CancellationScope.nonCancellable(() => cancelAtService(model.deepresearchId!));
  }

  // The task is over at the service: storing its outputs and reporting them is not interrupted by a
  // cancel that comes now (the references would be lost).
  const deepresearchId = created.deepresearchId;
  return await CancellationScope.nonCancellable(async () => {
    model.waitingFor = 'storing_outputs';
    publish();
    const outputs = await (collected ?? collect(deepresearchId));
    if (model.status === 'failed') {
      await handlersFinished();
      throw ApplicationFailure.create({
        type: FailureType.TaskFailed,
        message: `research task ${deepresearchId} failed: ${model.error ?? outputs.error ?? 'no error text given'}`,
        nonRetryable: true,
        details: [{ deepresearchId, outputs }],
      });
    }
    if (input.deleteAfterStore) await shortCalls.deleteResearchTask({ deepresearchId });
    return await finish(model.status === 'cancelled' ? 'cancelled' : 'completed', outputs);
  });

  /**
   * Reads the task's status; after a read that failed for good (an answer the client refuses, a status
   * outside the spec, a 404), says so, waits a growing delay (or a webhook) and returns undefined: the task
   * exists at the service and is followed until it ends or is cancelled. Ending the workflow here would
   * leave it unfollowed, and a pipeline's retry would pay for a second task.
   */
  async function readFollowing(deepresearchId: string): Promise<TaskSnapshot | undefined> {
    try {
      const snapshot = await untilOperatorFixes(() => shortCalls.getResearchTask({ deepresearchId }), operatorGate('research'));
      readFailures = 0;
      return snapshot;
    } catch (error) {
      if (isCancellation(error) || !patched('follow-through-read-failures')) throw error;
      readFailures++;
      // A task the service keeps saying it does not know (deleted, or never kept) is gone: nothing is left to follow.
      if (failureType(error) === FailureType.NotFound && readFailures >= NOT_FOUND_READS_TO_GIVE_UP) throw error;
      const delayMs = readRetryDelayMs(mode, readFailures, input.polling);
      model.detail = `the last ${readFailures === 1 ? 'status read' : `${readFailures} status reads`} failed (${failureMessage(error)}); the task exists at the service and is still followed: reading again in ${Math.round(delayMs / 1000)} s`;
      publish();
      await condition(() => inbox.wake, delayMs, { summary: `read the task's status again after ${readFailures} failed read(s)` });
      return undefined;
    }
  }

  /**
   * Reads the task a webhook says has ended and, if it has, stores its outputs in the same activity.
   * Undefined when that failed for good: the ordinary status read follows (the task is never left unfollowed).
   */
  async function readEnded(deepresearchId: string): Promise<EndedTaskOutputs | undefined> {
    try {
      return await storeJobs.storeEndedResearchOutputs({ deepresearchId, keyPrefix });
    } catch (error) {
      if (isCancellation(error)) throw error;
      return undefined;
    }
  }

  /** A task an earlier run left open at the service: followed from where it stands, never created again. */
  async function existing(deepresearchId: string): Promise<CreatedResearchTask> {
    const snapshot = await shortCalls.getResearchTask({ deepresearchId });
    model.deepresearchId = deepresearchId;
    model.apply(snapshot, Date.now());
    return {
      deepresearchId,
      status: snapshot.status,
      mode: snapshot.mode,
      createdAt: new Date(Date.now()).toISOString(),
      webhookConfigured: false,
      adopted: true,
    };
  }

  /**
   * Stores the ended task's outputs. A failure for good (an answer the client refuses) is said and tried
   * again after a growing delay: the task was paid for, and failing here would make a pipeline's retry pay
   * for another. Storing is idempotent, so trying again is safe.
   */
  async function collect(id: string): Promise<StoredOutputs> {
    for (let failures = 1; ; failures++) {
      try {
        return await storeJobs.storeResearchOutputs({ deepresearchId: id, keyPrefix });
      } catch (error) {
        if (isCancellation(error) || !patched('collect-through-failures')) throw error;
        const delayMs = readRetryDelayMs(mode, failures, input.polling);
        model.detail = `storing the outputs failed (${failureMessage(error)}); trying again in ${Math.round(delayMs / 1000)} s`;
        publish();
        await sleep(delayMs, { summary: `store the outputs again after ${failures} failed attempt(s)` });
      }
    }
  }

  /**
   * The workflow was cancelled: cancel the task at the service and store what it has. The service
   * cancels only queued or running tasks; one waiting at a checkpoint stays there, and the result says so.
   */
  async function cancelAtService(id: string): Promise<ResearchTaskResult> {
    let refusal: string | undefined;
    try {
      const cancelled = await shortCalls.cancelResearchTask({ deepresearchId: id });
      model.status = cancelled.status ?? 'cancelled';
    } catch (error) {
      refusal = failureMessage(error);
    }
    let openAtService: ResearchTaskResult['openAtService'];
    if (refusal !== undefined) {
      const snapshot = await shortCalls.getResearchTask({ deepresearchId: id });
      model.apply(snapshot, Date.now());
      if (!model.terminal) {
        openAtService = {
          status: snapshot.status,
          detail: `the service refused to cancel the task (${refusal}); it stays ${snapshot.status} at the service and does not go on without an answer`,
        };
      }
    }
    model.waitingFor = 'storing_outputs';
    publish();
    const outputs = await collect(id);
    return finish(model.status === 'completed' ? 'completed' : 'cancelled', outputs, openAtService);
  }

  async function finish(
    status: 'completed' | 'cancelled',
    outputs: StoredOutputs,
    openAtService?: ResearchTaskResult['openAtService'],
  ): Promise<ResearchTaskResult> {
    model.status = openAtService ? 'cancel_refused' : status;
    model.detail = openAtService?.detail;
    model.endWaits(Date.now());
    model.cost = outputs.cost ?? model.cost;
    model.outputs = outputs;
    publish();
    await handlersFinished();
    const finishedAt = Date.now();
    return {
      deepresearchId: model.deepresearchId!,
      status,
      mode,
      ...(openAtService ? { openAtService } : {}),
      outputs,
      cost: model.cost,
      sourceCount: outputs.sourceCount,
      timings: {
        startedAt,
        finishedAt,
        durationMs: finishedAt - startedAt,
        waitingForInputMs: model.waitingForInputMs,
        ...(model.reconcilingMs > 0 ? { reconcilingMs: model.reconcilingMs } : {}),
      },
      polls: model.polls,
      webhooks: model.webhooks,
    };
  }
}
