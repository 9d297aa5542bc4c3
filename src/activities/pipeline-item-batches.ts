import { setMaxListeners } from 'node:events';
import { ApplicationFailure } from '@temporalio/activity';
import type { ItemRequest } from '../pipelines/render-item';
import { FailureType } from '../domain/failures';
import type { PipelineBatchEntry, PipelineBatchOutcome } from '../domain/pipeline-types';
import { itemRecordOf } from '../domain/pipeline-records';
import type { ArtifactRef } from '../domain/artifacts';
import { activityContext, heartbeat, lastHeartbeatDetails } from './context';
import type { ActivityDeps } from './deps';
import { checkedKeyPrefix, invalidInput } from './errors';
import { itemRecordKey, itemResultKey } from './pipeline-items';
import { failureType, isCancellation, lostAttemptsUsd, roundMicros, runPaidCall, type StoredCall } from './pipeline-item-calls';
import type { ArtifactStore } from './store';

/**
 * What the activity needs to write an item's record itself when its call completes, as the run would
 * (`PipelineItemRecord`): given only for an item no earlier attempt may have been charged for.
 */
export interface BatchItemRecordFields {
  index: number;
  attempts: number;
  generation?: number;
}

/** `runPipelineItems` input: several Answer, Search or Contents items of one run, run as one activity. */
export interface RunPipelineItemsInput {
  prefix: string;
  items: Array<{ key: string; request: ItemRequest; reserveUsd?: number; record?: BatchItemRecordFields }>;
}

/**
 * A batch attempt's marker: written before its calls are sent (`keys`), and written again when the
 * attempt fails so that its retry re-sends only what is left, with the refusals that charged nothing
 * (`settled`) and the items that ended (`done`).
 */
interface BatchMarker {
  attempt: number;
  at: string;
  keys: string[];
  settled?: string[];
  done?: PipelineBatchEntry[];
}

/** What an earlier attempt of the same batch activity left: items that ended, and for each other item the attempts that sent it and never reported back. */
interface EarlierAttempts {
  done: Map<string, PipelineBatchEntry>;
  unsettled: Map<string, number>;
}

/** The heartbeat details of a batch: the items that ended so far (a retry after a lost worker keeps them). */
interface BatchProgress {
  done: PipelineBatchEntry[];
}

function progressOf(details: unknown): PipelineBatchEntry[] {
  const done = (details as Partial<BatchProgress> | null | undefined)?.done;
  return Array.isArray(done) ? done.filter((entry): entry is PipelineBatchEntry => typeof (entry as { key?: unknown } | null)?.key === 'string') : [];
}

/** The durable log of a batch activity's attempts (one marker per attempt; a no-op outside an activity). */
function batchAttemptLog(store: ArtifactStore, folder: string) {
  const info = activityContext()?.info;
  const attempt = info?.attempt ?? 1;
  // One activity execution (all its attempts) shares a run id and an activity id; a run-level retry is a new activity.
  const execution = info ? `${info.workflowExecution?.runId ?? 'standalone'}-${info.activityId}` : undefined;
  const markerOf = (n: number) => `${folder}/attempts/~batches/${execution}-${n}.json`;
  const write = async (marker: Omit<BatchMarker, 'attempt' | 'at'>) => {
    if (execution === undefined) return;
    await store.put(markerOf(attempt), `${JSON.stringify({ attempt, at: new Date().toISOString(), ...marker })}\n`, 'application/json');
  };
  const maximumAttempts = info?.retryPolicy?.maximumAttempts;
  return {
    /** True on the last attempt the retry policy allows: failures are reported per item rather than retried. */
    lastAttempt: maximumAttempts !== undefined && maximumAttempts > 0 && attempt >= maximumAttempts,
    async earlier(): Promise<EarlierAttempts> {
      const earlier: EarlierAttempts = { done: new Map(), unsettled: new Map() };
      if (execution === undefined) return earlier;
      for (let n = 1; n < attempt; n++) {
        const ref = await store.stat(markerOf(n));
        if (!ref) continue;
        const marker = JSON.parse(Buffer.from(await store.get(ref.key)).toString('utf8')) as BatchMarker;
        for (const entry of marker.done ?? []) earlier.done.set(entry.key, entry);
        const settled = new Set([...(marker.settled ?? []), ...(marker.done ?? []).map((entry) => entry.key)]);
        for (const key of marker.keys) if (!settled.has(key)) earlier.unsettled.set(key, (earlier.unsettled.get(key) ?? 0) + 1);
      }
      for (const entry of progressOf(lastHeartbeatDetails())) earlier.done.set(entry.key, entry);
      return earlier;
    },
    sending: (keys: string[]) => write({ keys }),
    failed: (keys: string[], settled: string[], done: PipelineBatchEntry[]) => write({ keys, settled, done }),
  };
}

/** A failure the batch retries (another attempt may succeed), with what it says. */
interface RetryLater {
  key: string;
  error: unknown;
  /** The call was answered with a refusal that charged nothing (else it may have been charged: a stored result was lost). */
  settled: boolean;
}

/**
 * Runs several Answer, Search or Contents items of one run in one activity: one attempt marker for the
 * batch before any call is sent, the calls at once, each result stored as its call ends. Each item ends
 * on its own: a call that fails for good (a refusal, a lost answer that may have been charged, a 402)
 * fails that item only. A failure another attempt may fix (a 5xx, a 429, a result the store refused)
 * retries the batch, after the others end: the retry re-sends only the items that did not end, as the
 * heartbeat details and the failed attempt's marker say, so no completed item's call is sent twice. An
 * item whose earlier attempt sent its call and never reported back (a lost worker) is counted as
 * possibly charged, as `runPipelineItem` counts it. On the policy's last attempt those failures are
 * reported per item instead.
 */
export async function runPipelineItems(
  { api, store }: Pick<ActivityDeps, 'api' | 'store'>,
  { prefix, items }: RunPipelineItemsInput,
): Promise<PipelineBatchOutcome> {
  const folder = checkedKeyPrefix(prefix);
  const keys = items.map((item) => item.key);
  if (new Set(keys).size !== keys.length) throw invalidInput('runPipelineItems: items: each key may appear once in a batch');
  const attempts = batchAttemptLog(store, folder);
  const earlier = await attempts.earlier();
  const done = new Map([...earlier.done].filter(([key]) => keys.includes(key)));
  const report = () => heartbeat({ done: [...done.values()] } satisfies BatchProgress);
  if (done.size > 0) report();
  const todo = items.filter((item) => !done.has(item.key));
  if (todo.length > 0) await attempts.sending(todo.map((item) => item.key));
  // Every call listens to the activity's cancellation signal.
  const signal = activityContext()?.cancellationSignal;
  if (signal && todo.length > 0) setMaxListeners(Math.max(10, todo.length * 2 + 10), signal);
  const retryLater: RetryLater[] = [];
  let cancellation: Error | undefined;
  await Promise.all(
    todo.map(async ({ key, request, reserveUsd = 0, record }) => {
      const unknown = earlier.unsettled.get(key) ?? 0;
      let stored: StoredCall;
      try {
        stored = await runPaidCall(api, request, report);
      } catch (error) {
        // A cancelled call may have been sent: it stays marked sent (the run counts its reservation).
        if (isCancellation(error)) {
          cancellation ??= error as Error;
          return;
        }
        const type = failureType(error);
        // A failure another attempt may fix (a 5xx, a 429, or an unexpected error, which the item's own activity
        // also notes as refused and retries): the batch tries the item again.
        if (!(error instanceof ApplicationFailure) || !error.nonRetryable) {
          retryLater.push({ key, error, settled: true });
          return;
        }
        done.set(key, failedEntry(key, error, type, roundMicros(unknown * reserveUsd)));
        report();
        return;
      }
      let result;
      try {
        result = await store.put(itemResultKey(folder, key), `${JSON.stringify({ key, ...stored }, null, 2)}\n`, 'application/json');
      } catch (error) {
        // Charged, and the result could not be kept: a retry sends the call again and counts this one.
        retryLater.push({ key, error, settled: false });
        return;
      }
      const possiblyChargedUsd = lostAttemptsUsd(unknown, reserveUsd, stored.costUsd);
      // The item's record, written here beside its result when nothing may have been charged twice (else the
      // run writes it, with what it counts): the run then neither carries it through history nor writes it again.
      const recorded = record !== undefined && possiblyChargedUsd === 0 && (await writeCompletedRecord(store, folder, key, record, stored.costUsd, result));
      done.set(key, {
        key,
        status: 'completed',
        // A recorded item's result is named in its record: the run needs only its cost (history stays small).
        outcome: recorded
          ? { costUsd: stored.costUsd, recorded }
          : { costUsd: stored.costUsd, result, ...(possiblyChargedUsd > 0 ? { possiblyChargedUsd } : {}) },
      });
      report();
    }),
  );
  if (cancellation !== undefined) throw cancellation;
  if (retryLater.length > 0 && !attempts.lastAttempt) {
    const ended = [...done.values()];
    await attempts.failed(
      todo.map((item) => item.key),
      retryLater.filter((failure) => failure.settled).map((failure) => failure.key),
      ended,
    );
    report();
    const first = retryLater[0]!.error;
    // A 429's Retry-After holds the whole batch: the longest one is waited for.
    const delays = retryLater.map(({ error }) => (error instanceof ApplicationFailure && typeof error.nextRetryDelay === 'number' ? error.nextRetryDelay : 0));
    throw ApplicationFailure.create({
      ...(first instanceof ApplicationFailure && first.type ? { type: first.type } : {}),
      message: `${retryLater.length} of ${items.length} items of this batch failed and are tried again (the ${ended.length} that ended are kept, not sent again); first: ${retryLater[0]!.key}: ${first instanceof Error ? first.message : String(first)}`,
      ...(Math.max(...delays) > 0 ? { nextRetryDelay: Math.max(...delays) } : {}),
    });
  }
  // The last attempt: what is still failing fails its own item.
  for (const { key, error, settled } of retryLater) {
    const reserveUsd = items.find((item) => item.key === key)?.reserveUsd ?? 0;
    const unknown = earlier.unsettled.get(key) ?? 0;
    done.set(
      key,
      settled
        ? failedEntry(key, error, failureType(error), roundMicros(unknown * reserveUsd))
        : failedEntry(key, error, FailureType.PossiblyCharged, roundMicros(unknown * reserveUsd)),
    );
  }
  return { items: items.map((item) => done.get(item.key)!) };
}

/** Writes a completed item's record (as the run's `recordPipelineItems` would); false when the store refused it (the run writes it then). */
async function writeCompletedRecord(
  store: ArtifactStore,
  folder: string,
  key: string,
  fields: BatchItemRecordFields,
  costUsd: number,
  result: ArtifactRef,
): Promise<boolean> {
  const record = itemRecordOf({ key, ...fields }, fields.attempts, { status: 'completed', costUsd, result }, Date.now());
  try {
    await store.put(itemRecordKey(folder, key), `${JSON.stringify(record)}\n`, 'application/json');
    return true;
  } catch {
    return false;
  }
}

function failedEntry(key: string, error: unknown, type: string | undefined, earlierPossiblyChargedUsd: number): PipelineBatchEntry {
  return {
    key,
    status: 'failed',
    error: error instanceof Error ? error.message : String(error),
    ...(type ? { failureType: type } : {}),
    ...(earlierPossiblyChargedUsd > 0 ? { earlierPossiblyChargedUsd } : {}),
  };
}

/** The activity that runs several Answer, Search or Contents items (paid calls) of one run at once. */
export function pipelineItemBatchActivities(deps: ActivityDeps) {
  return { runPipelineItems: (input: RunPipelineItemsInput) => runPipelineItems(deps, input) };
}
