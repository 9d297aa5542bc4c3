import { ApplicationFailure, CancelledFailure, log } from '@temporalio/activity';
import { ResearchApiError, type AnswerRequest, type PreviewWorkflowRequest } from '../api';
import { estimateItem, type PreviewFigures } from '../pipelines/estimate';
import { InputError } from '../pipelines/input-file';
import { ItemError, itemKey, SINGLE_ITEM_KEY } from '../pipelines/item-keys';
import { readItems } from '../pipelines/read-items';
import { renderItemRequest, type ItemRequest } from '../pipelines/render-item';
import type { ItemCursor, ItemSource, PipelineDefinition, RunContext, SourceItem } from '../pipelines/types';
import type { PipelineItemOutcome, PipelineItemRecord, PlannedItem, PlannedPage, RunParams } from '../workflows/pipeline-types';
import { FailureType } from '../workflows/failures';
import type { ActivityDeps } from './deps';
import type { ArtifactStore } from './store';
import { callOptions, heartbeat } from './context';
import { createOutcomeOf } from './create-outcome';
import { attemptLog } from './attempt-log';
import { checkedKeyPrefix, invalidInput, rethrowAsFailure } from './errors';

/** Where a run's item record lives. */
export const itemRecordKey = (prefix: string, key: string): string => `${prefix}/items/${key}.json`;
/** Where an Answer, Search or Contents item's result lives. */
export const itemResultKey = (prefix: string, key: string): string => `${prefix}/results/${key}.json`;

/** What identifies a run to the activities that render its items. */
export interface PipelineRunRef {
  definition: PipelineDefinition;
  source: ItemSource;
  params: RunParams;
  runKey: string;
  runDate: string;
  /** The run's store folder (`pipelineRunPrefix`). */
  prefix: string;
}

/** `readPipelinePage` input. */
export interface ReadPipelinePageInput extends PipelineRunRef {
  cursor?: ItemCursor;
  limit: number;
  /** Items of this page already taken by an earlier execution (after continue-as-new): left out. */
  skip?: number;
}

/** `runPipelineItem` input: an Answer, Search or Contents request and where to store its result. */
export interface RunPipelineItemInput {
  key: string;
  request: ItemRequest;
  prefix: string;
  /** The item's reserved price: what an earlier attempt that may have been charged is counted at. */
  reserveUsd?: number;
}

/** `recordPipelineItems` input. */
export interface RecordPipelineItemsInput {
  prefix: string;
  records: PipelineItemRecord[];
}

/** The record an earlier execution of a run left for an item, if any (an unreadable one counts as none). */
export async function readItemRecord(store: ArtifactStore, prefix: string, key: string): Promise<PipelineItemRecord | undefined> {
  const ref = await store.stat(itemRecordKey(prefix, key));
  if (!ref) return undefined;
  try {
    return JSON.parse(Buffer.from(await store.get(ref.key)).toString('utf8')) as PipelineItemRecord;
  } catch {
    return undefined;
  }
}

/**
 * A paid call whose answer was lost on the way (a time-out, a dropped connection, a stream cut short)
 * may have been charged, and these calls have no idempotency key: the failure says so and is not
 * retried here, so the run counts the price and retries the item within its budget. Anything else is
 * classified as usual (5xx and 429 are answered before any charge and retried by the activity).
 */
function throwPaidCallFailure(error: unknown): never {
  // A connection never made (refused, unknown host, connect time-out) sent nothing: that stays retryable.
  if (error instanceof ResearchApiError && (error.kind === 'timeout' || error.kind === 'network') && createOutcomeOf(error) === 'unknown') {
    throw ApplicationFailure.create({ type: FailureType.PossiblyCharged, nonRetryable: true, message: `the answer was lost after the request was sent, so it may have been charged: ${error.message}` });
  }
  return rethrowAsFailure(error);
}

async function paidCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    return throwPaidCallFailure(error);
  }
}

/** The template context of a run. */
export function runContext(run: Pick<PipelineRunRef, 'definition' | 'params' | 'runKey' | 'runDate'>): RunContext {
  return { params: run.params, pipeline: { name: run.definition.name }, run: { key: run.runKey, date: run.runDate } };
}

/**
 * An item's key, or a stand-in (`invalid-<n>`) with the problem when its key cannot be rendered: one
 * bad row fails alone instead of stopping the run.
 */
export function keyOf(definition: PipelineDefinition, source: ItemSource, item: SourceItem, context: RunContext): { key: string; problem?: string } {
  if (source.kind === 'single') return { key: SINGLE_ITEM_KEY };
  try {
    return { key: itemKey(definition.input?.key ?? '', item, context) };
  } catch (error) {
    if (error instanceof ItemError) return { key: `invalid-${item.index + 1}`, problem: error.message };
    throw error;
  }
}

/** Reads input items from `cursor`, turning a file that cannot be read into a non-retryable failure naming it. */
export async function readSourcePage(source: ItemSource, cursor: ItemCursor | undefined, limit: number) {
  try {
    return await readItems(source, { cursor, limit });
  } catch (error) {
    if (error instanceof InputError) throw invalidInput(error.message);
    throw error;
  }
}

/** Most bytes a page of planned items may carry (its activity result sits in history; Temporal refuses payloads over 2 MB). */
export const MAX_PAGE_BYTES = 512 * 1024;
/** Most bytes one planned item (its rendered request) may carry: larger ones fail alone. */
export const MAX_PLANNED_ITEM_BYTES = 128 * 1024;

/** Activities that plan, run and record the items of a pipeline run. */
/** USD rounded to the micro-dollar. */
function roundMicros(usd: number): number {
  return Math.round(usd * 1_000_000) / 1_000_000;
}

/**
 * The failure of an item's call, carrying what earlier attempts that sent the call and never reported
 * back may have been charged (`earlierPossiblyChargedUsd` in its details), with its type and retry kept.
 */
function withEarlierCharges(error: unknown, usd: number): unknown {
  if (!(error instanceof ApplicationFailure) || usd <= 0) return error;
  return ApplicationFailure.create({
    ...(error.type ? { type: error.type } : {}), nonRetryable: error.nonRetryable === true,
    message: `${error.message} (earlier attempts that sent this call and never reported back may have been charged ${usd} USD)`,
    details: [...(error.details ?? []), { earlierPossiblyChargedUsd: usd }], ...(error.nextRetryDelay !== undefined && error.nextRetryDelay !== null ? { nextRetryDelay: error.nextRetryDelay } : {}),
  });
}

/** How much more than a completed attempt an attempt whose outcome was lost is counted at, at least (see runPipelineItem). */
export const LOST_ATTEMPT_COST_FACTOR = 1.5;

export function pipelineItemActivities(deps: ActivityDeps) {
  const { api, store } = deps;

  const previousRecord = (prefix: string, key: string) => readItemRecord(store, prefix, key);

  /**
   * Reads one page of the run's input from `cursor` and plans each item: its key, its request rendered
   * and checked by the route's schema, the price to reserve, and whether an earlier execution of this
   * run (`--resume`) already completed it. Items that cannot run come back with their problem.
   */
  async function readPipelinePage(input: ReadPipelinePageInput): Promise<PlannedPage> {
    const prefix = checkedKeyPrefix(input.prefix);
    const page = await readSourcePage(input.source, input.cursor, input.limit);
    const context = runContext(input);
    const previews = new Map<string, Promise<PreviewFigures | { problem: string }>>();
    const skip = input.skip ?? 0;
    const items: PlannedItem[] = [];
    let bytes = 0;
    for (const item of page.items.slice(skip)) {
      let planned = await planItem(input, prefix, item, context, previews);
      const size = Buffer.byteLength(JSON.stringify(planned));
      // An item too large to sit in history fails alone; a page stops before it would grow past its budget.
      if (size > MAX_PLANNED_ITEM_BYTES) planned = { key: planned.key, index: planned.index, where: planned.where, reserveUsd: 0, problem: `${item.where}: the rendered request is ${Math.ceil(size / 1024)} KB, over the ${MAX_PLANNED_ITEM_BYTES / 1024} KB an item may carry through workflow history; shorten its templates' inputs` };
      else if (items.length > 0 && bytes + size > MAX_PAGE_BYTES) {
        // The cursor must point just past the items returned: read that many again for its position.
        const exact = await readSourcePage(input.source, input.cursor, skip + items.length);
        return { items, cursor: exact.cursor, done: false };
      }
      items.push(planned);
      bytes += Math.min(size, MAX_PLANNED_ITEM_BYTES);
    }
    return { items, cursor: page.cursor, done: page.done };
  }

  /** One item's plan: its key, its request rendered and checked, the price to reserve, or why it cannot run. */
  async function planItem(input: ReadPipelinePageInput, prefix: string, item: SourceItem, context: RunContext, previews: Map<string, Promise<PreviewFigures | { problem: string }>>): Promise<PlannedItem> {
    const { key, problem } = keyOf(input.definition, input.source, item, context);
    const planned: PlannedItem = { key, index: item.index, where: item.where, reserveUsd: 0 };
    if (problem) return { ...planned, problem };
    const earlier = await previousRecord(prefix, key);
    if (earlier?.status === 'completed') return { ...planned, done: { status: 'completed', costUsd: earlier.costUsd } };
    try {
      const request = renderItemRequest(input.definition, { ...item, key }, context);
      const preview = request.kind === 'workflow' ? await previewOf(request.preview, previews) : undefined;
      if (preview && 'problem' in preview) return { ...planned, problem: `${item.where}: ${preview.problem}` };
      const estimate = estimateItem(request, preview);
      // An item an earlier execution left cancelled ran a child that completed (cancelled): it starts a new one.
      const generation = earlier?.status === 'cancelled' ? (earlier.generation ?? 0) + 1 : earlier?.generation;
      return {
        ...planned, request, reserveUsd: Math.max(estimate.usd, estimate.maxUsd), ...(estimate.unbounded ? { priceUnbounded: true } : {}),
        ...(earlier ? { attempts: 0 } : {}), ...(generation ? { generation } : {}),
        ...(earlier?.status === 'cancelled' && earlier.openAtService ? { existingTask: earlier.openAtService.deepresearchId } : {}),
      };
    } catch (error) {
      if (!(error instanceof ItemError)) throw error;
      return { ...planned, problem: error.message };
    }
  }

  /**
   * A service workflow item's preview (free, nothing runs): its price is reserved at the preview's
   * estimate and resolved mode, not at a guess. A preview the service refuses (an unknown workflow, bad
   * params) makes the item fail without spending; a transient failure retries the page read.
   */
  function previewOf(preview: { slug: string; params: Record<string, unknown>; version?: number }, cache: Map<string, Promise<PreviewFigures | { problem: string }>>): Promise<PreviewFigures | { problem: string }> {
    const body: PreviewWorkflowRequest = { workflow_params: preview.params, ...(preview.version ? { workflow_version: preview.version } : {}) };
    const signature = JSON.stringify([preview.slug, body]);
    let found = cache.get(signature);
    if (!found) {
      found = api.previewWorkflow(preview.slug, body, callOptions()).then(
        (answer): PreviewFigures => ({ estimatedCredits: answer.estimated_credits ?? null, ...(answer.resolved.mode ? { mode: answer.resolved.mode } : {}) }),
        (error: unknown) => {
          if (error instanceof ResearchApiError && error.status !== undefined && !error.retryable && error.status !== 401 && error.status !== 403 && error.status !== 402) {
            return { problem: `workflow ${preview.slug} preview refused: ${error.message}` };
          }
          return rethrowAsFailure(error);
        },
      );
      cache.set(signature, found);
    }
    return found;
  }

  /** Runs one Answer, Search or Contents item and stores its result; paid calls fail as typed failures (402 stops the run). */
  async function runPipelineItem({ key, request, prefix, reserveUsd }: RunPipelineItemInput): Promise<PipelineItemOutcome> {
    const folder = checkedKeyPrefix(prefix);
    // The call has no idempotency key: note the attempt durably before sending, and count earlier attempts
    // that sent it and never reported back (a killed worker) as possibly charged.
    const attempts = await attemptLog(store, folder, key);
    const unknown = await attempts.unsettledEarlier();
    await attempts.sending();
    let stored: { kind: string; output: unknown; sources?: unknown; costUsd: number };
    try {
      stored = await runPaidCall(request);
    } catch (error) {
      // A definite refusal (an HTTP error answer, invalid input) was not charged: settled. A lost answer
      // fails as PossiblyCharged (the run counts it), and a cancelled attempt (the worker shutting down)
      // may have sent the call: both stay marked sent, so a retry of this activity counts them.
      if (!isCancellation(error) && failureType(error) !== FailureType.PossiblyCharged) await attempts.settled();
      // Earlier attempts that never reported back are not forgotten when this one fails: the failure carries them.
      if (unknown > 0 && !isCancellation(error)) throw withEarlierCharges(error, roundMicros(unknown * (reserveUsd ?? 0)));
      throw error;
    }
    await attempts.settled();
    const result = await store.put(itemResultKey(folder, key), `${JSON.stringify({ key, ...stored }, null, 2)}\n`, 'application/json');
    // Each such attempt counts at the item's reservation, or at one and a half times what this one cost if
    // that is more: an Answer's AI usage (priced by the service, not bounded by the spec) and a Search's
    // results vary between two calls of one request, and the ledger must not count less than was charged.
    const perAttemptUsd = Math.max(reserveUsd ?? 0, stored.costUsd * LOST_ATTEMPT_COST_FACTOR);
    const possiblyChargedUsd = unknown > 0 ? Math.round(unknown * perAttemptUsd * 1_000_000) / 1_000_000 : 0;
    if (unknown > 0) log.warn('an earlier attempt sent this paid call and never reported back: it may have been charged too', { key, earlierAttempts: unknown, possiblyChargedUsd });
    return { costUsd: stored.costUsd, result, ...(possiblyChargedUsd > 0 ? { possiblyChargedUsd } : {}) };
  }

  async function runPaidCall(request: ItemRequest): Promise<{ kind: string; output: unknown; sources?: unknown; costUsd: number }> {
    let stored: { kind: string; output: unknown; sources?: unknown; costUsd: number };
    switch (request.kind) {
      case 'answer': stored = await answer(request.request); break;
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
      default: throw invalidInput(`runPipelineItem runs answer, search and contents items; ${request.kind} items run as research task workflows`);
    }
    return stored;
  }

  async function answer(request: AnswerRequest): Promise<{ kind: string; output: unknown; sources: unknown[]; costUsd: number }> {
    let text = '';
    let costUsd = 0;
    const sources: unknown[] = [];
    try {
      for await (const event of api.answer(request, callOptions())) {
        if (event.type === 'content') text += event.delta;
        else if (event.type === 'search_results') sources.push(...event.searchResults.map((result) => ({ title: result.title, url: result.url })));
        else if (event.type === 'metadata') costUsd = event.metadata.cost.total_deduction_dollars;
        heartbeat({ characters: text.length });
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

  /** Writes item records (one file each, replaced whole), so outputs and `--resume` know how each item ended. */
  async function recordPipelineItems({ prefix, records }: RecordPipelineItemsInput): Promise<{ written: number }> {
    const folder = checkedKeyPrefix(prefix);
    for (const record of records) await store.put(itemRecordKey(folder, record.key), `${JSON.stringify(record)}\n`, 'application/json');
    return { written: records.length };
  }

  return { readPipelinePage, runPipelineItem, recordPipelineItems };
}

const isCancellation = (error: unknown): boolean => error instanceof CancelledFailure || (error instanceof Error && error.name === 'AbortError');
const failureType = (error: unknown): string | undefined => (error instanceof ApplicationFailure ? error.type ?? undefined : undefined);
