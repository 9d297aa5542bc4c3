import { ResearchApiError, type PreviewWorkflowRequest, type ResearchClient } from '../api';
import { estimateItem, type PreviewFigures } from '../pipelines/estimate';
import { ItemError } from '../pipelines/item-keys';
import { renderItemRequest } from '../pipelines/render-item';
import { keptByWhere, planSteps, stepReserves } from '../pipelines/step-plan';
import { readAhead } from '../shared/read-ahead';
import { roundUsd } from '../domain/budget';
import type { ItemCursor, RunContext, SourceItem } from '../pipelines/types';
import type { PlannedItem, PlannedPage } from '../domain/pipeline-types';
import type { ActivityDeps } from './deps';
import { callOptions } from './context';
import { checkedKeyPrefix, rethrowAsFailure } from './errors';
import { keyOf, readItemRecord, readSourcePage, runContext, type PipelineRunRef } from './pipeline-items';

/** `readPipelinePage` input. */
export interface ReadPipelinePageInput extends PipelineRunRef {
  cursor?: ItemCursor;
  limit: number;
  /** Items of this page already taken by an earlier execution (after continue-as-new): left out. */
  skip?: number;
}

/** Most bytes a page of planned items may carry (its activity result sits in history; Temporal refuses payloads over 2 MB). */
export const MAX_PAGE_BYTES = 512 * 1024;
/** Most bytes one planned item (its rendered request) may carry: larger ones fail alone. */
export const MAX_PLANNED_ITEM_BYTES = 128 * 1024;
/** Items of a page planned at once (each looks up its record in the store; a service workflow item may ask for a preview). */
export const PLAN_CONCURRENCY = 16;

/**
 * Reads one page of the run's input from `cursor` and plans each item: its key, its request rendered
 * and checked by the route's schema, the price to reserve, and whether an earlier execution of this
 * run (`--resume`) already completed it. Items that cannot run come back with their problem.
 */
export async function readPipelinePage(deps: Pick<ActivityDeps, 'api' | 'store'>, input: ReadPipelinePageInput): Promise<PlannedPage> {
  const prefix = checkedKeyPrefix(input.prefix);
  const page = await readSourcePage(input.source, input.cursor, input.limit);
  const context = runContext(input);
  const previews = new Map<string, Promise<PreviewFigures | { problem: string }>>();
  const skip = input.skip ?? 0;
  const items: PlannedItem[] = [];
  let bytes = 0;
  // Rows `input.where:` leaves out are never keyed, priced or run; `skip` counts kept rows only.
  const kept = page.items.filter((item) => keptByWhere(input.definition, item.value, context.params));
  // Items are planned PLAN_CONCURRENCY at a time (a record look-up each, a preview for service
  // workflows) and taken in order, so the page and its byte cut are those of planning one by one.
  for await (const [item, plan] of readAhead(kept.slice(skip), PLAN_CONCURRENCY, (row) => planItem(deps, input, prefix, row, context, previews))) {
    let planned = plan;
    const size = Buffer.byteLength(JSON.stringify(planned));
    // An item too large to sit in history fails alone; a page stops before it would grow past its budget.
    if (size > MAX_PLANNED_ITEM_BYTES)
      planned = {
        key: planned.key,
        index: planned.index,
        where: planned.where,
        reserveUsd: 0,
        problem: `${item.where}: the rendered request is ${Math.ceil(size / 1024)} KB, over the ${MAX_PLANNED_ITEM_BYTES / 1024} KB an item may carry through workflow history; shorten its templates' inputs`,
      };
    else if (items.length > 0 && bytes + size > MAX_PAGE_BYTES) {
      // The cursor must point just past the items returned: read that many rows again for its position.
      const rows = items[items.length - 1]!.index + 1 - (input.cursor?.index ?? 0);
      const exact = await readSourcePage(input.source, input.cursor, rows);
      return { items, cursor: exact.cursor, done: false };
    }
    items.push(planned);
    bytes += Math.min(size, MAX_PLANNED_ITEM_BYTES);
  }
  return { items, cursor: page.cursor, done: page.done };
}

/** One item's plan: its key, its request rendered and checked, the price to reserve, or why it cannot run. */
async function planItem(
  deps: Pick<ActivityDeps, 'api' | 'store'>,
  input: ReadPipelinePageInput,
  prefix: string,
  item: SourceItem,
  context: RunContext,
  previews: Map<string, Promise<PreviewFigures | { problem: string }>>,
): Promise<PlannedItem> {
  const { key, problem } = keyOf(input.definition, input.source, item, context);
  const planned: PlannedItem = { key, index: item.index, where: item.where, reserveUsd: 0 };
  if (problem) return { ...planned, problem };
  const earlier = await readItemRecord(deps.store, prefix, key);
  if (earlier?.status === 'completed') return { ...planned, done: { status: 'completed', costUsd: earlier.costUsd } };
  if (input.definition.steps) {
    // Steps are rendered one at a time as the item runs (later ones read earlier results): here only their prices.
    const { reserves, unbounded } = stepReserves(planSteps(input.definition, item.value, context.params));
    const generation = earlier?.status === 'cancelled' ? (earlier.generation ?? 0) + 1 : earlier?.generation;
    return {
      ...planned,
      stepwise: { value: item.value, reserves },
      reserveUsd: roundUsd(reserves.reduce((sum, usd) => sum + usd, 0)),
      ...(unbounded ? { priceUnbounded: true } : {}),
      ...(earlier ? { attempts: 0 } : {}),
      ...(generation ? { generation } : {}),
    };
  }
  try {
    const request = renderItemRequest(input.definition, { ...item, key }, context);
    const preview = request.kind === 'workflow' ? await previewOf(deps.api, request.preview, previews) : undefined;
    if (preview && 'problem' in preview) return { ...planned, problem: `${item.where}: ${preview.problem}` };
    const estimate = estimateItem(request, preview);
    // An item an earlier execution left cancelled ran a child that completed (cancelled): it starts a new one.
    const generation = earlier?.status === 'cancelled' ? (earlier.generation ?? 0) + 1 : earlier?.generation;
    return {
      ...planned,
      request,
      reserveUsd: Math.max(estimate.usd, estimate.maxUsd),
      ...(estimate.unbounded ? { priceUnbounded: true } : {}),
      ...(earlier ? { attempts: 0 } : {}),
      ...(generation ? { generation } : {}),
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
export function previewOf(
  api: ResearchClient,
  preview: { slug: string; params: Record<string, unknown>; version?: number },
  cache: Map<string, Promise<PreviewFigures | { problem: string }>>,
): Promise<PreviewFigures | { problem: string }> {
  const body: PreviewWorkflowRequest = { workflow_params: preview.params, ...(preview.version ? { workflow_version: preview.version } : {}) };
  const signature = JSON.stringify([preview.slug, body]);
  let found = cache.get(signature);
  if (!found) {
    found = api.previewWorkflow(preview.slug, body, callOptions()).then(
      (answer): PreviewFigures => ({ estimatedCredits: answer.estimated_credits ?? null, ...(answer.resolved.mode ? { mode: answer.resolved.mode } : {}) }),
      (error: unknown) => {
        if (
          error instanceof ResearchApiError &&
          error.status !== undefined &&
          !error.retryable &&
          error.status !== 401 &&
          error.status !== 403 &&
          error.status !== 402
        ) {
          return { problem: `workflow ${preview.slug} preview refused: ${error.message}` };
        }
        return rethrowAsFailure(error);
      },
    );
    cache.set(signature, found);
  }
  return found;
}

/** The activity that reads and plans a run's input a page at a time. */
export function pipelinePageActivities(deps: ActivityDeps) {
  return { readPipelinePage: (input: ReadPipelinePageInput) => readPipelinePage(deps, input) };
}
