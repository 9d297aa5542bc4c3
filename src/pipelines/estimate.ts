import { MODES, type ResearchMode } from '../api/schemas';
import type { PipelineDefinition } from './definition-schema';
import type { ItemRequest } from './render-item';
import { stepSpec, type StepSpec } from './step-kind';
import type { CostEstimate } from './types';

// Prices of spec section 1 and 8. Search is priced per thousand tokens of the results returned, so
// only a request that caps both its price (max_price, a CPM) and its result length can be bounded.
export const ANSWER_PRICE_USD = 0.1;
export const ANSWER_DEFAULT_DATA_MAX_PRICE_USD = 1;
export const CONTENTS_PRICE_PER_URL_USD = 0.001;
export const CONTENTS_AI_PRICE_PER_URL_USD = 0.001;
export const ADD_BATCH_TASKS_LIMIT = 100;
const CHARACTERS_PER_TOKEN = 4;

const ROUTES = {
  task: 'POST /v1/deepresearch/tasks',
  createBatch: 'POST /v1/deepresearch/batches',
  addBatchTasks: 'POST /v1/deepresearch/batches/{id}/tasks',
  preview: 'POST /v1/workflows/{slug}/preview',
  answer: 'POST /v1/answer',
  search: 'POST /v1/search',
  contents: 'POST /v1/contents',
} as const;

const round = (usd: number): number => Math.round(usd * 1_000_000) / 1_000_000;
const one = (route: string, usd: number, maxUsd = usd, notes: string[] = []): CostEstimate => ({
  usd: round(usd),
  maxUsd: round(maxUsd),
  calls: { [route]: 1 },
  notes,
});
const modePrice = (mode: ResearchMode | undefined): number => MODES[mode ?? 'standard'].priceUsd;

function taskNotes(tools: Record<string, unknown> | undefined): string[] {
  const enabled = Object.entries(tools ?? {})
    .filter(([, on]) => on === true)
    .map(([name]) => name);
  return enabled.length > 0 ? [`tool surcharges (${enabled.join(', ')}) are added to the mode price; the spec does not price them`] : [];
}

/** A workflow preview's figures, when one was made: its estimate (credits are USD at the baseline) and mode. */
export interface PreviewFigures {
  estimatedCredits: number | null;
  mode?: ResearchMode;
}

/** Estimated cost and calls of one rendered item, from the spec's prices. */
export function estimateItem(request: ItemRequest, preview?: PreviewFigures): CostEstimate {
  switch (request.kind) {
    case 'deepresearch':
      return one(ROUTES.task, modePrice(request.request.mode), undefined, taskNotes(request.request.tools));
    case 'batch': {
      // One task of the run's batch: the requests are counted once per run (estimateRun).
      const usd = round(modePrice(request.mode));
      return { usd, maxUsd: usd, calls: {}, notes: [] };
    }
    case 'workflow': {
      const mode = request.request.mode ?? preview?.mode;
      const usd = request.request.mode === undefined && typeof preview?.estimatedCredits === 'number' ? preview.estimatedCredits : modePrice(mode);
      const notes = preview ? [] : ['workflow not previewed: priced at the standard mode'];
      return one(ROUTES.task, usd, undefined, notes);
    }
    case 'answer': {
      const cap = request.request.data_max_price ?? ANSWER_DEFAULT_DATA_MAX_PRICE_USD;
      return one(ROUTES.answer, ANSWER_PRICE_USD, ANSWER_PRICE_USD + cap, ['Answer AI costs are variable and not priced by the spec']);
    }
    case 'search': {
      const { max_price: cpm, max_num_results: results = 5, response_length: length } = request.request;
      const bounded = cpm !== undefined && typeof length === 'number';
      const maxUsd = bounded ? (results * Math.ceil(length / CHARACTERS_PER_TOKEN) * cpm) / 1000 : 0;
      if (bounded) return one(ROUTES.search, 0, maxUsd);
      return {
        ...one(ROUTES.search, 0, 0, [
          'Search is priced per thousand tokens returned and this request does not bound it (set max_price and an integer response_length): the run runs one item first and reserves twice the dearest seen for the others',
        ]),
        unbounded: true,
      };
    }
    case 'contents': {
      const ai = request.request.summary !== undefined && request.request.summary !== false;
      const usd = request.request.urls.length * (CONTENTS_PRICE_PER_URL_USD + (ai ? CONTENTS_AI_PRICE_PER_URL_USD : 0));
      return one(ROUTES.contents, usd);
    }
  }
}

/**
 * What one step of `steps:` costs at most, from its configuration alone (before its templates can be
 * rendered: they may read earlier results). Every field a price depends on (mode, caps, URL count) is
 * plain data in the schema, so this is the price the rendered request will have; a service workflow is
 * priced at its mode (standard when unset) until its preview, when the step runs.
 */
export function estimateStep(step: StepSpec): CostEstimate {
  switch (step.kind) {
    case 'deepresearch':
      return one(ROUTES.task, modePrice(step.config.mode), undefined, taskNotes(step.config.tools));
    case 'workflow':
      return one(
        ROUTES.task,
        modePrice(step.config.mode),
        undefined,
        step.config.mode ? [] : ['workflow priced at the standard mode; its preview, when the step runs, sets the price'],
      );
    case 'batch':
      return { usd: round(modePrice(step.config.mode)), maxUsd: round(modePrice(step.config.mode)), calls: {}, notes: [] };
    case 'answer':
      return estimateItem({ kind: 'answer', request: { ...step.config, query: step.config.query } });
    case 'search':
      return estimateItem({ kind: 'search', request: { ...step.config, query: step.config.query } });
    case 'contents':
      return estimateItem({ kind: 'contents', request: { ...step.config, urls: step.config.urls } });
  }
}

/** Sums estimates: money, calls by route, and each distinct note once. */
export function sumEstimates(estimates: Iterable<CostEstimate>): CostEstimate {
  const total: CostEstimate = { usd: 0, maxUsd: 0, calls: {}, notes: [] };
  for (const estimate of estimates) {
    total.usd = round(total.usd + estimate.usd);
    total.maxUsd = round(total.maxUsd + estimate.maxUsd);
    for (const [route, count] of Object.entries(estimate.calls)) total.calls[route] = (total.calls[route] ?? 0) + count;
    for (const note of estimate.notes) if (!total.notes.includes(note)) total.notes.push(note);
  }
  return total;
}

/**
 * A whole run: the items' estimates plus what the run adds once (a batch's create and add-tasks
 * requests, the synthesis step). `items` is the sum of `estimateItem`.
 */
export function estimateRun(definition: PipelineDefinition, items: CostEstimate, itemCount: number, synthesis?: ItemRequest): CostEstimate {
  const parts = [items];
  const step = definition.step ? stepSpec(definition.step) : undefined;
  if (step?.kind === 'batch' && itemCount > 0) {
    parts.push({
      usd: 0,
      maxUsd: 0,
      calls: { [ROUTES.createBatch]: 1, [ROUTES.addBatchTasks]: Math.ceil(itemCount / ADD_BATCH_TASKS_LIMIT) },
      notes: [],
    });
  }
  if (synthesis) parts.push(estimateItem(synthesis));
  return sumEstimates(parts);
}

/** The preview route's name in call counts (previews are free). */
export const PREVIEW_ROUTE = ROUTES.preview;
