import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { throwIfCancelled } from './cancellation';
import type { BatchSnapshot, CollectedBatchPage } from '../activities/types';
import { batchAdds, shortCalls, storeJobs } from './activity-proxies';
import { batchInputProblems, batchRunDetails, chunk, isBatchFinished, MAX_INLINE_BATCH_TASKS, MAX_TASKS_PER_ADD, nextBatchPollDelayMs } from './batch-plan';
import { continueAsNewAfterHandlers, handlersFinished, historyIsFull } from './continue-as-new';
import { untilOperatorFixes, type OperatorGate } from './operator-remedy';
import { PublishedAttributes } from './published-attributes';
import { described, researchBatchStateQuery, resumeSignal, webhookReceivedSignal } from './definitions';
import { batchSettledSignal } from './pipeline-definitions';
import { failureMessage } from './failure-info';
import { FailureType } from '../domain/failures';
import { contextMetadata } from '../domain/ids';
import { ResearchCostUsdKey, ResearchModeKey, ResearchPipelineKey, ResearchStatusKey } from './search-attributes';
import type { ResearchBatchCarried, ResearchBatchInput, ResearchBatchResult, ResearchBatchState } from './types';

/**
 * One service batch as a durable workflow: create it with shared configuration, add tasks 100 at a
 * time (waiting for an operator after 402, 401 or 403), follow its counts (polling plus batch webhooks), then store
 * every task's output page by page. Cancelling cancels the batch and collects what finished. Long
 * runs continue as new, carrying only what is left to do and references to what was stored.
 */
export async function researchBatchWorkflow(input: ResearchBatchInput): Promise<ResearchBatchResult> {
  if (!input.carried) {
    const problems = batchInputProblems(input.batch, input.tasks, input.tasksRef);
    if (problems.length > 0) {
      throw ApplicationFailure.create({ type: FailureType.InvalidInput, message: `batch refused: ${problems.join('; ')}`, nonRetryable: true });
    }
  }
  const carried: Omit<ResearchBatchCarried, 'batchId'> & { batchId?: string } = input.carried ?? {
    phase: 'adding',
    webhookConfigured: false,
    tasksTotal: input.tasksRef?.count ?? input.tasks.length,
    tasksAdded: 0,
    collected: [],
    collectedCount: 0,
    manifests: [],
    polls: 0,
    startedAt: Date.now(),
  };
  const state: ResearchBatchState = {
    batchId: carried.batchId,
    phase: carried.batchId ? carried.phase : 'creating',
    tasksAdded: carried.tasksAdded,
    tasksTotal: carried.tasksTotal,
    collected: carried.collectedCount,
    polls: carried.polls,
    detail: carried.detail,
  };
  let addedThisRun = 0;
  let wake = false;
  let resumeRequested = carried.resumeRequested ?? false;
  // Search attributes change rarely; upserting only changes keeps one event per change, not per poll.
  const attributes = new PublishedAttributes();
  // Runs started before this change upserted on every publish; they keep doing so on replay.
  const onlyChanges = patched('batch-upsert-only-changes');
  setHandler(
    researchBatchStateQuery,
    () => ({ ...state, tasksAdded: carried.tasksAdded, collected: carried.collectedCount, polls: carried.polls }),
    described(researchBatchStateQuery),
  );
  setHandler(webhookReceivedSignal, () => void (wake = true), described(webhookReceivedSignal));
  setHandler(resumeSignal, () => void (resumeRequested = true), described(resumeSignal));

  const publish = (snapshot?: BatchSnapshot): void => {
    if (snapshot) Object.assign(state, { status: snapshot.status, counts: snapshot.counts, cost: snapshot.cost });
    // ResearchStatus is the batch's status at the service (the workflow's phase is in its details).
    attributes.upsert(
      [{ key: ResearchStatusKey, value: state.status ?? 'creating' }, ...(state.cost !== undefined ? [{ key: ResearchCostUsdKey, value: state.cost }] : [])],
      { kind: onlyChanges ? 'changed' : 'always' },
    );
    setCurrentDetails(batchRunDetails({ ...state, tasksAdded: carried.tasksAdded, tasksTotal: carried.tasksTotal }));
  };
  const maybeContinueAsNew = async (): Promise<void> => {
    if (!historyIsFull(input.continueAsNewAfterEvents)) return;
    await continueAsNewAfterHandlers<typeof researchBatchWorkflow>(() => ({
      ...input,
      tasks: carried.phase === 'adding' ? input.tasks.slice(addedThisRun) : [],
      carried: { ...carried, batchId: carried.batchId!, resumeRequested, detail: state.detail },
    }));
  };
  // Credits, a refused key or a missing permission wait for an operator's resume instead of failing.
  const operator: OperatorGate = {
    show: (remedy) => {
      state.detail = remedy?.detail;
      publish();
    },
    resumed: () => resumeRequested,
    consume: () => void (resumeRequested = false),
  };
  const addChunk = async (batchId: string, tasks: ResearchBatchInput['tasks'], tasksRef?: { key: string; offset: number; limit: number }): Promise<void> => {
    let reconcile = false;
    const added = await untilOperatorFixes(() => {
      // Nothing is added once the batch is cancelled (before the first chunk, or while waiting for a top-up).
      throwIfCancelled();
      // After a refused add, list the batch first: ids already there are not added again. A chunk in flight
      // is finished (not cancellable), so its outcome is known; the wait for an operator's resume is
      // cancellable, so a batch cancelled while waiting for a top-up ends.
      const call = CancellationScope.nonCancellable(() => batchAdds.addResearchBatchTasks({ batchId, tasks, reconcile, ...(tasksRef ? { tasksRef } : {}) }));
      reconcile = true;
      return call;
    }, operator);
    state.counts = added.counts;
  };

  attributes.upsert([
    ...(input.batch.mode ? [{ key: ResearchModeKey, value: input.batch.mode }] : []),
    ...(input.context?.pipeline ? [{ key: ResearchPipelineKey, value: input.context.pipeline }] : []),
  ]);
  try {
    if (!carried.batchId) {
      // A batch cancelled before its create starts creates nothing.
      throwIfCancelled();
      const created = await CancellationScope.nonCancellable(() =>
        shortCalls.createResearchBatch({
          request: { ...input.batch, metadata: { ...input.batch.metadata, ...contextMetadata(input.context) } },
          requestKey: `${workflowInfo().workflowId}#${workflowInfo().firstExecutionRunId}`,
        }),
      );
      Object.assign(carried, { batchId: created.batchId, webhookConfigured: created.webhookConfigured });
      Object.assign(state, { batchId: created.batchId, status: created.status, phase: 'adding' });
    }
    const batchId = carried.batchId!;
    publish();
    if (carried.phase === 'adding' && input.tasksRef) {
      // By reference: the activity reads each chunk from the store; the workflow holds only the offset.
      const { key, count } = input.tasksRef;
      while (carried.tasksAdded < count) {
        const limit = Math.min(MAX_TASKS_PER_ADD, count - carried.tasksAdded);
        await addChunk(batchId, [], { key, offset: carried.tasksAdded, limit });
        carried.tasksAdded += limit;
        publish();
        if (CancellationScope.current().consideredCancelled) await CancellationScope.current().cancelRequested;
        await maybeContinueAsNew();
      }
      carried.phase = state.phase = 'following';
    }
    if (carried.phase === 'adding') {
      for (const tasks of chunk(input.tasks)) {
        // A chunk in flight is finished, so its outcome is known; a cancel stops the adding after it.
        await addChunk(batchId, tasks);
        addedThisRun += tasks.length;
        carried.tasksAdded += tasks.length;
        publish();
        if (CancellationScope.current().consideredCancelled) await CancellationScope.current().cancelRequested;
        await maybeContinueAsNew();
      }
      carried.phase = state.phase = 'following';
    }
    while (carried.phase === 'following') {
      // Cleared before the poll: a webhook arriving while it runs wakes the next one.
      wake = false;
      const snapshot = await untilOperatorFixes(() => shortCalls.getResearchBatch({ batchId }), operator);
      carried.polls++;
      publish(snapshot);
      if (isBatchFinished(snapshot.status)) break;
      await condition(
        () => wake,
        nextBatchPollDelayMs({ elapsedMs: Date.now() - carried.startedAt, webhookConfigured: carried.webhookConfigured, overrides: input.polling }),
      );
      await maybeContinueAsNew();
    }
  } catch (error) {
    if (!isCancellation(error) || !carried.batchId) {
      await handlersFinished();
      throw error;
    }
    const batchId = carried.batchId;
    // Runs started before this change end Completed after a cancel; on replay they keep doing so.
    if (patched('batch-end-canceled')) carried.cancelled = true;
    await CancellationScope.nonCancellable(async () => {
      // A refused cancel (the batch finished meanwhile, say) must not lose what finished: collect anyway.
      await shortCalls.cancelResearchBatch({ batchId }).catch((refusal: unknown) => {
        state.detail = `the service refused to cancel the batch: ${failureMessage(refusal)}`;
      });
      publish(await shortCalls.getResearchBatch({ batchId }));
    });
  }
  const result = await CancellationScope.nonCancellable(() => collect(carried.batchId!));
  if (carried.cancelled) {
    state.result = result;
    // Cancelled by request: what finished is collected and stored; the workflow ends Canceled, as
    // Temporal's UI and clients expect. A pipeline run that awaits it learns the result from the report.
    const parent = workflowInfo().parent?.workflowId;
    if (parent && input.context?.pipeline)
      await CancellationScope.nonCancellable(() =>
        getExternalWorkflowHandle(parent)
          .signal(batchSettledSignal, { workflowId: workflowInfo().workflowId, result })
          .catch(() => undefined),
      );
    throw new CancelledFailure(
      `service batch ${result.batchId} cancelled: ${result.collectedCount} finished tasks collected; cost ${(result.cost ?? 0).toFixed(2)} USD`,
    );
  }
  return result;

  async function collect(batchId: string): Promise<ResearchBatchResult> {
    carried.phase = state.phase = 'collecting';
    publish();
    let page: CollectedBatchPage | undefined;
    do {
      page = await storeJobs.collectResearchBatchPage({
        batchId,
        keyPrefix: `batches/${batchId}`,
        lastKey: carried.lastKey,
        pageIndex: carried.manifests.length,
      });
      carried.collected.push(...page.tasks.slice(0, MAX_INLINE_BATCH_TASKS - carried.collected.length));
      carried.collectedCount += page.tasks.length;
      if (page.manifest) carried.manifests.push(page.manifest);
      carried.lastKey = page.nextKey;
      state.collected = carried.collectedCount;
      if (page.hasMore && page.nextKey !== undefined) await maybeContinueAsNew();
    } while (page.hasMore && page.nextKey !== undefined);
    const final = await shortCalls.getResearchBatch({ batchId });
    state.phase = 'done';
    publish(final);
    await handlersFinished();
    return {
      batchId,
      status: final.status,
      counts: final.counts,
      cost: final.cost,
      tasks: carried.collected,
      tasksTruncated: carried.collectedCount > carried.collected.length,
      collectedCount: carried.collectedCount,
      manifests: carried.manifests,
    };
  }
}
