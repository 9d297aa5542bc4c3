import {
  ApplicationFailure, CancellationScope, allHandlersFinished, condition, continueAsNew, isCancellation, proxyActivities,
  setCurrentDetails, setHandler, upsertSearchAttributes, workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { BatchSnapshot } from '../activities/types';
import { download, shortCall } from './activity-options';
import { batchInputProblems, chunk, CONTINUE_AS_NEW_HISTORY_LENGTH, isBatchFinished, nextBatchPollDelayMs } from './batch-plan';
import { researchBatchStateQuery, webhookReceivedSignal } from './definitions';
import { FailureType } from './failures';
import { contextMetadata } from './ids';
import { ResearchCostUsdKey, ResearchModeKey, ResearchPipelineKey, ResearchStatusKey } from './search-attributes';
import type { ResearchBatchCarried, ResearchBatchInput, ResearchBatchResult, ResearchBatchState } from './types';

type Activities = ReturnType<typeof createActivities>;
const calls = proxyActivities<Activities>(shortCall);
const downloads = proxyActivities<Activities>(download);

/**
 * One service batch as a durable workflow: create it with shared configuration, add tasks 100 at a
 * time, follow its counts (polling plus batch webhooks), then store every task's output page by page.
 * Cancelling cancels the batch and collects what finished. Long runs continue as new.
 */
export async function researchBatchWorkflow(input: ResearchBatchInput): Promise<ResearchBatchResult> {
  const problems = batchInputProblems(input.batch as Record<string, unknown>, input.tasks);
  if (problems.length > 0) {
    throw ApplicationFailure.create({ type: FailureType.InvalidInput, message: `batch refused: ${problems.join('; ')}`, nonRetryable: true });
  }
  const state: ResearchBatchState = {
    batchId: input.carried?.batchId,
    phase: input.carried?.phase ?? 'creating',
    tasksAdded: input.carried?.tasksAdded ?? 0,
    tasksTotal: input.tasks.length,
    collected: input.carried?.collected.length ?? 0,
    polls: input.carried?.polls ?? 0,
  };
  const carried: Omit<ResearchBatchCarried, 'batchId' | 'phase'> = {
    tasksAdded: state.tasksAdded,
    collected: input.carried?.collected ?? [],
    manifests: input.carried?.manifests ?? [],
    lastKey: input.carried?.lastKey,
    polls: state.polls,
    startedAt: input.carried?.startedAt ?? Date.now(),
  };
  let wake = false;
  let webhookConfigured = input.batch.webhook_url !== undefined;
  setHandler(researchBatchStateQuery, () => ({ ...state, collected: carried.collected.length }));
  setHandler(webhookReceivedSignal, () => {
    wake = true;
  });
  const publish = (snapshot?: BatchSnapshot): void => {
    if (snapshot) Object.assign(state, { status: snapshot.status, counts: snapshot.counts, cost: snapshot.cost });
    upsertSearchAttributes([
      { key: ResearchStatusKey, value: state.status ?? state.phase },
      ...(state.cost !== undefined ? [{ key: ResearchCostUsdKey, value: state.cost }] : []),
    ]);
    const counts = state.counts ? ` · ${state.counts.completed}/${state.counts.total} completed, ${state.counts.failed} failed` : '';
    setCurrentDetails(`**${state.phase}** · batch \`${state.batchId ?? '…'}\` · ${state.tasksAdded}/${state.tasksTotal} added${counts}`);
  };
  const maybeContinueAsNew = async (): Promise<void> => {
    if (!workflowInfo().continueAsNewSuggested && workflowInfo().historyLength < CONTINUE_AS_NEW_HISTORY_LENGTH) return;
    await condition(allHandlersFinished);
    await continueAsNew<typeof researchBatchWorkflow>({
      ...input,
      carried: { ...carried, batchId: state.batchId!, phase: state.phase as ResearchBatchCarried['phase'], polls: state.polls },
    });
  };

  upsertSearchAttributes([
    ...(input.batch.mode ? [{ key: ResearchModeKey, value: input.batch.mode }] : []),
    ...(input.context?.pipeline ? [{ key: ResearchPipelineKey, value: input.context.pipeline }] : []),
  ]);
  try {
    if (!state.batchId) {
      const created = await CancellationScope.nonCancellable(() => calls.createResearchBatch({
        request: { ...input.batch, metadata: { ...input.batch.metadata, ...contextMetadata(input.context) } },
        requestKey: `${workflowInfo().workflowId}#${workflowInfo().firstExecutionRunId}`,
      }));
      state.batchId = created.batchId;
      webhookConfigured = created.webhookConfigured;
      state.phase = 'adding';
      state.status = created.status;
    }
    const batchId = state.batchId;
    publish();
    if (state.phase === 'adding') {
      for (const tasks of chunk(input.tasks.slice(carried.tasksAdded))) {
        const added = await calls.addResearchBatchTasks({ batchId, tasks });
        carried.tasksAdded += tasks.length;
        state.tasksAdded = carried.tasksAdded;
        state.counts = added.counts;
        publish();
        await maybeContinueAsNew();
      }
      state.phase = 'following';
    }
    while (state.phase === 'following') {
      const snapshot = await calls.getResearchBatch({ batchId });
      state.polls++;
      publish(snapshot);
      if (isBatchFinished(snapshot.status)) break;
      wake = false;
      await condition(() => wake, nextBatchPollDelayMs({ elapsedMs: Date.now() - carried.startedAt, webhookConfigured, overrides: input.polling }));
      await maybeContinueAsNew();
    }
  } catch (error) {
    if (!isCancellation(error) || !state.batchId) throw error;
    const batchId = state.batchId;
    await CancellationScope.nonCancellable(async () => {
      await calls.cancelResearchBatch({ batchId });
      publish(await calls.getResearchBatch({ batchId }));
    });
  }
  return await CancellationScope.nonCancellable(async () => collect(state.batchId!));

  async function collect(batchId: string): Promise<ResearchBatchResult> {
    state.phase = 'collecting';
    publish();
    let hasMore = true;
    while (hasMore) {
      const page = await downloads.collectResearchBatchPage({ batchId, keyPrefix: `batches/${batchId}`, lastKey: carried.lastKey });
      carried.collected.push(...page.tasks);
      carried.lastKey = page.nextKey;
      hasMore = page.hasMore && page.nextKey !== undefined;
      state.collected = carried.collected.length;
    }
    const final = await calls.getResearchBatch({ batchId });
    state.phase = 'done';
    publish(final);
    await condition(allHandlersFinished);
    return { batchId, status: final.status, counts: final.counts, cost: final.cost, tasks: carried.collected, manifests: carried.manifests };
  }
}
