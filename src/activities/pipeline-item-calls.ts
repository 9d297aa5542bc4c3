import { ApplicationFailure, CancelledFailure, log } from '@temporalio/activity';
import { ResearchApiError, type AnswerRequest, type ResearchClient } from '../api';
import type { ItemRequest } from '../pipelines/render-item';
import { roundUsd } from '../domain/budget';
import { FailureType } from '../domain/failures';
import type { PipelineItemOutcome } from '../domain/pipeline-types';
import { attemptLog } from './attempt-log';
import { callOptions, heartbeat } from './context';
import { createOutcomeOf } from './create-outcome';
import type { ActivityDeps } from './deps';
import { checkedKeyPrefix, invalidInput, rethrowAsFailure } from './errors';
import { itemResultKey } from './pipeline-items';

/** `runPipelineItem` input: an Answer, Search or Contents request and where to store its result. */
export interface RunPipelineItemInput {
  key: string;
  request: ItemRequest;
  prefix: string;
  /** The item's reserved price: what an earlier attempt that may have been charged is counted at. */
  reserveUsd?: number;
}

/** How much more than a completed attempt an attempt whose outcome was lost is counted at, at least (see runPipelineItem). */
export const LOST_ATTEMPT_COST_FACTOR = 1.5;

/**
 * A paid call whose answer was lost on the way (a time-out, a dropped connection, a stream cut short)
 * may have been charged, and these calls have no idempotency key: the failure says so and is not
 * retried here, so the run counts the price and retries the item within its budget. Anything else is
 * classified as usual (5xx and 429 are answered before any charge and retried by the activity).
 */
function throwPaidCallFailure(error: unknown): never {
  // A connection never made (refused, unknown host, connect time-out) sent nothing: that stays retryable.
  if (error instanceof ResearchApiError && (error.kind === 'timeout' || error.kind === 'network') && createOutcomeOf(error) === 'unknown') {
    throw ApplicationFailure.create({
      type: FailureType.PossiblyCharged,
      nonRetryable: true,
      message: `the answer was lost after the request was sent, so it may have been charged: ${error.message}`,
    });
  }
  return rethrowAsFailure(error);
}

/** Runs a paid call; its failure becomes the typed one (see `throwPaidCallFailure`). */
async function paidCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    return throwPaidCallFailure(error);
  }
}

/** USD rounded to the micro-dollar (the ledger's `roundUsd`). */
export const roundMicros = roundUsd;

/**
 * The failure of an item's call, carrying what earlier attempts that sent the call and never reported
 * back may have been charged (`earlierPossiblyChargedUsd` in its details), with its type and retry kept.
 */
function withEarlierCharges(error: unknown, usd: number): unknown {
  if (!(error instanceof ApplicationFailure) || usd <= 0) return error;
  return ApplicationFailure.create({
    ...(error.type ? { type: error.type } : {}),
    nonRetryable: error.nonRetryable === true,
    message: `${error.message} (earlier attempts that sent this call and never reported back may have been charged ${usd} USD)`,
    details: [...(error.details ?? []), { earlierPossiblyChargedUsd: usd }],
    ...(error.nextRetryDelay !== undefined && error.nextRetryDelay !== null ? { nextRetryDelay: error.nextRetryDelay } : {}),
  });
}

/**
 * What `unknown` earlier attempts that sent an item's call and never reported back may have been
 * charged, given that this attempt's call cost `costUsd`: each at the item's reservation, or at one and
 * a half times this call's cost if that is more.
 */
export function lostAttemptsUsd(unknown: number, reserveUsd: number, costUsd: number): number {
  return unknown > 0 ? roundMicros(unknown * Math.max(reserveUsd, costUsd * LOST_ATTEMPT_COST_FACTOR)) : 0;
}

/** Runs one Answer, Search or Contents item and stores its result; paid calls fail as typed failures (402 stops the run). */
export async function runPipelineItem(
  { api, store }: Pick<ActivityDeps, 'api' | 'store'>,
  { key, request, prefix, reserveUsd }: RunPipelineItemInput,
): Promise<PipelineItemOutcome> {
  const folder = checkedKeyPrefix(prefix);
  // The call has no idempotency key: note the attempt durably before sending, and count earlier attempts
  // that sent it and never reported back (a killed worker) as possibly charged.
  const attempts = await attemptLog(store, folder, key);
  const unknown = await attempts.unsettledEarlier();
  await attempts.sending();
  let stored: StoredCall;
  try {
    stored = await runPaidCall(api, request);
  } catch (error) {
    // A definite refusal (an HTTP error answer, invalid input) was not charged: settled. A lost answer
    // fails as PossiblyCharged (the run counts it), and a cancelled attempt (the worker shutting down)
    // may have sent the call: both stay marked sent, so a retry of this activity counts them.
    if (!isCancellation(error) && failureType(error) !== FailureType.PossiblyCharged) await attempts.settled();
    // Earlier attempts that never reported back are not forgotten when this one fails: the failure carries them.
    if (unknown > 0 && !isCancellation(error)) throw withEarlierCharges(error, roundMicros(unknown * (reserveUsd ?? 0)));
    throw error;
  }
  // A completed call was charged: its marker stays "sent", so a retry after a lost completion (the worker
  // died before reporting it) counts this charge as well instead of taking the call as never made.
  const result = await store.put(itemResultKey(folder, key), `${JSON.stringify({ key, ...stored }, null, 2)}\n`, 'application/json');
  // Each such attempt counts at the item's reservation, or at one and a half times what this one cost if
  // that is more: an Answer's AI usage (priced by the service, not bounded by the spec) and a Search's
  // results vary between two calls of one request, and the ledger must not count less than was charged.
  const possiblyChargedUsd = lostAttemptsUsd(unknown, reserveUsd ?? 0, stored.costUsd);
  if (unknown > 0)
    log.warn('an earlier attempt sent this paid call and never reported back: it may have been charged too', {
      key,
      earlierAttempts: unknown,
      possiblyChargedUsd,
    });
  return { costUsd: stored.costUsd, result, ...(possiblyChargedUsd > 0 ? { possiblyChargedUsd } : {}) };
}

/** What an Answer, Search or Contents call returned, as its result file keeps it (with the item's key). */
export interface StoredCall {
  kind: string;
  output: unknown;
  sources?: unknown;
  costUsd: number;
}

/**
 * Sends an item's paid call and reads its answer; failures are typed (see `throwPaidCallFailure`).
 * `progress` hears each streamed Answer event's running length (it heartbeats by default).
 */
export async function runPaidCall(
  api: ResearchClient,
  request: ItemRequest,
  progress: (characters: number) => void = (characters) => heartbeat({ characters }),
): Promise<StoredCall> {
  let stored: StoredCall;
  switch (request.kind) {
    case 'answer':
      stored = await answer(api, request.request, progress);
      break;
    case 'search': {
      const response = await paidCall(() => api.search(request.request, callOptions()));
      stored = { kind: 'search', output: response.results, costUsd: response.total_deduction_dollars };
      break;
    }
    case 'contents': {
      const response = await paidCall(() => api.contents(request.request, callOptions()));
      const costUsd = response.total_cost_dollars ?? response.results.reduce((sum, result) => sum + (result.status === 'success' ? (result.price ?? 0) : 0), 0);
      stored = { kind: 'contents', output: response.results, costUsd };
      break;
    }
    default:
      throw invalidInput(`runPipelineItem runs answer, search and contents items; ${request.kind} items run as research task workflows`);
  }
  return stored;
}

async function answer(
  api: ResearchClient,
  request: AnswerRequest,
  progress: (characters: number) => void,
): Promise<{ kind: string; output: unknown; sources: unknown[]; costUsd: number }> {
  let text = '';
  let costUsd = 0;
  const sources: unknown[] = [];
  try {
    for await (const event of api.answer(request, callOptions())) {
      if (event.type === 'content') text += event.delta;
      else if (event.type === 'search_results') sources.push(...event.searchResults.map((result) => ({ title: result.title, url: result.url })));
      else if (event.type === 'metadata') costUsd = event.metadata.cost.total_deduction_dollars;
      progress(text.length);
    }
  } catch (error) {
    throwPaidCallFailure(error);
  }
  let output: unknown = text;
  if (request.structured_output) {
    try {
      output = JSON.parse(text);
    } catch {
      log.warn('a structured answer was not JSON; kept as text', { characters: text.length });
    }
  }
  return { kind: 'answer', output, sources, costUsd };
}

/** The activity that runs an Answer, Search or Contents item (a paid call) and stores its result. */
export function pipelineItemCallActivities(deps: ActivityDeps) {
  return { runPipelineItem: (input: RunPipelineItemInput) => runPipelineItem(deps, input) };
}

export const isCancellation = (error: unknown): boolean => error instanceof CancelledFailure || (error instanceof Error && error.name === 'AbortError');
export const failureType = (error: unknown): string | undefined => (error instanceof ApplicationFailure ? (error.type ?? undefined) : undefined);
