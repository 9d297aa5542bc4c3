import type { StoredOutputs } from '../domain/artifacts';
import { failureMessage, failureType } from './failure-info';
import { roundUsd } from '../domain/budget';
import { FailureType } from '../domain/failures';
import type { ItemSettledReport } from '../domain/pipeline-types';
import type { ItemOutcome } from './pipeline-run-model';
import type { PipelineBatchEntry, PipelineItemOutcome } from '../domain/pipeline-types';
import type { ResearchTaskResult } from '../domain/research-types';

// How each way an item can end becomes the outcome the run records: plain data in, plain data out, so
// the money each one counts is tested apart from the workflow.

/** How an item's research task workflow that returned ended, as the run records it. */
export function childOutcome(workflowId: string, result: ResearchTaskResult): ItemOutcome {
  return {
    status: result.status,
    costUsd: result.cost ?? result.outputs.cost ?? 0,
    workflowId,
    outputs: result.outputs,
    ...(result.openAtService
      ? { openAtService: { deepresearchId: result.deepresearchId, status: result.openAtService.status }, error: result.openAtService.detail }
      : {}),
  };
}

/** An item's research task workflow failed: what it stored before failing (and paid) is counted. */
export function failedChildOutcome(workflowId: string, error: unknown): ItemOutcome {
  const outputs = (failureDetails(error) as { outputs?: StoredOutputs } | undefined)?.outputs;
  return {
    status: 'failed',
    costUsd: outputs?.cost ?? 0,
    workflowId,
    ...(outputs ? { outputs } : {}),
    error: failureMessage(error),
    failureType: failureType(error),
  };
}

/** An item's workflow id that ran outside this run and cannot be adopted: the item fails rather than run twice. */
export function alreadyRanOutcome(workflowId: string): ItemOutcome {
  return {
    status: 'failed',
    costUsd: 0,
    workflowId,
    failureType: FailureType.InvalidInput,
    error: `workflow ${workflowId} already ran for this run key and did not fail (it completed or is running outside this run): not started twice`,
  };
}

/** An adopted item's outcome, from its report or from a look at its workflow. */
export function adoptedOutcome(workflowId: string, ended: Omit<ItemSettledReport, 'item' | 'workflowId'>): ItemOutcome {
  // A cancelled task's result (a Canceled workflow reports it) carries what it cost and stored.
  if ((ended.status === 'completed' || ended.status === 'cancelled') && ended.result) return childOutcome(workflowId, ended.result);
  if (ended.status === 'cancelled') return { status: 'cancelled', costUsd: 0, workflowId };
  return {
    status: 'failed',
    costUsd: ended.outputs?.cost ?? 0,
    workflowId,
    ...(ended.outputs ? { outputs: ended.outputs } : {}),
    error: ended.error ?? "the item's workflow failed",
    ...(ended.failureType ? { failureType: ended.failureType } : {}),
  };
}

/** An Answer, Search or Contents item's call that returned: an earlier attempt that never reported back may have been charged too, so it is counted, and said. */
export function itemCallOutcome(outcome: PipelineItemOutcome): ItemOutcome {
  const possiblyChargedUsd = outcome.possiblyChargedUsd ?? 0;
  return {
    status: 'completed',
    costUsd: outcome.costUsd + possiblyChargedUsd,
    result: outcome.result,
    ...(possiblyChargedUsd > 0
      ? { possiblyChargedUsd, error: `possibly charged twice: ${possiblyChargedUsd} USD (an earlier attempt sent the call and never reported back)` }
      : {}),
    ...(outcome.recorded ? { recorded: true } : {}),
  };
}

/** An item's call cancelled while in flight: it may have been charged, so its reserved price counts. */
export function cancelledItemCallOutcome(reserveUsd: number): ItemOutcome {
  return {
    status: 'cancelled',
    costUsd: reserveUsd,
    error: 'cancelled while its call was in flight: its reserved price is counted (it may have been charged)',
  };
}

/**
 * An item's call that failed (not cancelled). Credits running out (402) puts the item back for the
 * operator's resume. A call that may have been charged costs its reserved price, and so does each
 * earlier attempt that sent it and never reported back: the ledger never counts less than was paid.
 */
export function failedItemCallOutcome(error: unknown, reserveUsd: number): ItemOutcome {
  if (failureType(error) === FailureType.CreditsExhausted) return { status: 'credits_exhausted' };
  const costUsd = (failureType(error) === FailureType.PossiblyCharged ? reserveUsd : 0) + earlierPossiblyCharged(error);
  return { status: 'failed', costUsd, ...(costUsd > 0 ? { possiblyChargedUsd: costUsd } : {}), error: failureMessage(error), failureType: failureType(error) };
}

/** What earlier attempts of a failed item call may have been charged, as its failure's details say (see runPipelineItem). */
function earlierPossiblyCharged(error: unknown): number {
  const details = (error as { cause?: { details?: unknown[] } } | undefined)?.cause?.details ?? [];
  const found = details.find(
    (detail): detail is { earlierPossiblyChargedUsd: number } =>
      typeof (detail as { earlierPossiblyChargedUsd?: unknown } | null)?.earlierPossiblyChargedUsd === 'number',
  );
  return found?.earlierPossiblyChargedUsd ?? 0;
}

/** The details an application failure carried (a failed research task carries its stored outputs). */
function failureDetails(error: unknown): unknown {
  const cause = (error as { cause?: { details?: unknown[] } } | undefined)?.cause;
  return Array.isArray(cause?.details) ? cause.details[0] : undefined;
}

/**
 * One item of a `runPipelineItems` batch that returned, as the run records it: the same money as the
 * item's own activity would count (see `itemCallOutcome` and `failedItemCallOutcome`). An item the batch
 * did not report on (it never should) counts its reserved price.
 */
export function batchEntryOutcome(entry: PipelineBatchEntry | undefined, reserveUsd: number): ItemOutcome {
  if (!entry) {
    return {
      status: 'failed',
      costUsd: reserveUsd,
      ...(reserveUsd > 0 ? { possiblyChargedUsd: reserveUsd } : {}),
      error: 'its batch reported no outcome for this item: its reserved price is counted (it may have been charged)',
    };
  }
  if (entry.status === 'completed') return itemCallOutcome(entry.outcome);
  if (entry.failureType === FailureType.CreditsExhausted) return { status: 'credits_exhausted' };
  const costUsd = roundUsd((entry.failureType === FailureType.PossiblyCharged ? reserveUsd : 0) + (entry.earlierPossiblyChargedUsd ?? 0));
  return {
    status: 'failed',
    costUsd,
    ...(costUsd > 0 ? { possiblyChargedUsd: costUsd } : {}),
    error: entry.error,
    ...(entry.failureType ? { failureType: entry.failureType } : {}),
  };
}

/**
 * A `runPipelineItems` batch that failed as a whole (its attempts spent, or timed out): items its last
 * heartbeat reported as ended keep their outcome; every other item fails as its own activity would have.
 */
export function failedBatchOutcomes(error: unknown, items: Array<{ key: string; reserveUsd: number }>): ItemOutcome[] {
  const details = (error as { cause?: { lastHeartbeatDetails?: unknown } } | undefined)?.cause?.lastHeartbeatDetails;
  const done = (details as { done?: unknown } | null | undefined)?.done;
  const ended = new Map((Array.isArray(done) ? (done as PipelineBatchEntry[]) : []).map((entry) => [entry.key, entry]));
  return items.map(({ key, reserveUsd }) => {
    const entry = ended.get(key);
    return entry ? batchEntryOutcome(entry, reserveUsd) : failedItemCallOutcome(error, reserveUsd);
  });
}
