import type { PreviewWorkflowRequest, PreviewWorkflowResponse } from '../api/schemas';
import { ResearchApiError } from '../api/errors';
import { roundUsd } from '../domain/budget';
import { pipelineItemWorkflowId, pipelineRunWorkflowId, researchBatchWorkflowId } from '../domain/ids';
import { estimateItem, estimateRun, PREVIEW_ROUTE, sumEstimates } from '../pipelines/estimate';
import { itemSource } from '../pipelines/input-source';
import { InputChecker } from '../pipelines/input-check';
import { ItemError, itemKey, SINGLE_ITEM_KEY } from '../pipelines/item-keys';
import type { LoadedPipeline } from '../pipelines/load';
import { resolveParameters } from '../pipelines/parameters';
import type { ParameterValue } from '../pipelines/parameter-schema';
import { readItems } from '../pipelines/read-items';
import { renderBatchConfig, renderItemRequest, renderStepRequest, renderSynthesisRequest } from '../pipelines/render-item';
import { keptByWhere, planSteps, stepReserves, type PlannedStepEstimate } from '../pipelines/step-plan';
import { DryRunStepTally, type DryRunStep } from './dry-run-steps';
import { nextScheduleTimes } from '../pipelines/schedule-schema';
import { definitionKinds } from '../pipelines/step-kind';
import type { CostEstimate, ItemCursor, KeyedItem, RunContext, SourceItem } from '../pipelines/types';

/** Resolves a service workflow without running it (`POST /v1/workflows/{slug}/preview`). */
export type WorkflowPreviewer = (slug: string, request: PreviewWorkflowRequest) => Promise<PreviewWorkflowResponse>;

/** Options of a dry run. */
export interface DryRunOptions {
  /** Parameter values (`--set`), as text to convert or as typed values. */
  overrides?: Record<string, ParameterValue>;
  runKey?: string;
  now?: Date;
  /** Needed when the step is a service workflow; each distinct set of parameters is previewed once. */
  previewWorkflow?: WorkflowPreviewer;
  pageSize?: number;
  /** Item errors kept in the report (all are counted). */
  maxErrors?: number;
}

/** What a dry run found: every item checked, the estimate, and what a real run would be called. */
export interface DryRunReport {
  pipeline: string;
  runWorkflowId: string;
  params: Record<string, ParameterValue>;
  items: number;
  /** The first items' keys, with the workflow id each would run under (DeepResearch and workflow steps). */
  firstItems: Array<{ key: string; workflowId?: string }>;
  /** The batch step's workflow id. */
  batchWorkflowId?: string;
  /** A `steps:` pipeline: calls and cost per step, with the items that run, may run, or skip each. */
  steps?: DryRunStep[];
  /** A `steps:` pipeline: what the items cost if no step whose `when:` depends on results runs (`estimate` assumes they all do). */
  estimateAtLeastUsd?: number;
  /** Rows `input.where:` left out. */
  filtered: number;
  errorCount: number;
  errors: string[];
  previews: number;
  estimate: CostEstimate;
  budgetUsd: number;
  /** Most one item reserves from the budget while it runs (its price plus its requests' caps). */
  reservePerItemUsd: number;
  /**
   * Budget the run needs to finish at the estimated cost: the estimate plus the largest reservation
   * beyond an item's estimate (the last item must still fit its reservation, or the run waits for a raise).
   */
  budgetNeededUsd: number;
  /** The run cannot finish within budget_usd even at the estimated cost. */
  overBudget: boolean;
  nextRuns?: string[];
}

/**
 * Renders each step an item surely or maybe runs, with no earlier results: a template reading only the
 * item and parameters is checked now, one that reads an earlier step's result only when the step runs.
 */
function checkStepTemplates(
  definition: LoadedPipeline['definition'],
  item: KeyedItem,
  context: RunContext,
  planned: readonly PlannedStepEstimate[],
  fail: (message: string) => void,
): void {
  planned.forEach((step, index) => {
    if (step.runs === false) return;
    try {
      renderStepRequest(definition, index, item, context, {});
    } catch (error) {
      if (!(error instanceof ItemError)) throw error;
      if (error.variable?.startsWith('steps.') || /\bsteps\.[a-z]/.test(error.message)) return;
      fail(error.message);
    }
  });
}

/**
 * Checks a run without spending anything: parameters resolved, every item read page by page, keyed
 * (unique, safe in workflow ids) and rendered into the request its route would accept, service
 * workflows previewed, and the cost estimated from the spec's prices. Throws `ParameterError` for bad
 * parameters; item problems are collected in the report.
 */
export async function dryRunPipeline(loaded: LoadedPipeline, options: DryRunOptions = {}): Promise<DryRunReport> {
  const { definition } = loaded;
  const now = options.now ?? new Date();
  const params = resolveParameters(definition.parameters, options.overrides, { textValues: true });
  const runKey = options.runKey ?? `dry-run-${now.toISOString().slice(0, 10)}`;
  const context: RunContext = { params, pipeline: { name: definition.name }, run: { key: runKey, date: now.toISOString().slice(0, 10) } };
  const maxErrors = options.maxErrors ?? 20;
  const errors: string[] = [];
  let errorCount = 0;
  const fail = (message: string): void => {
    errorCount += 1;
    if (errors.length < maxErrors) errors.push(message);
  };
  const attempt = async <T>(work: () => T | Promise<T>): Promise<T | undefined> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ItemError) return void fail(error.message);
      throw error;
    }
  };

  await attempt(() => renderBatchConfig(definition, context));
  const synthesis = await attempt(() => renderSynthesisRequest(definition, context));
  const previews = new Map<string, Promise<PreviewWorkflowResponse>>();
  const itemEstimates: CostEstimate[] = [];
  const firstItems: DryRunReport['firstItems'] = [];
  const source = itemSource(loaded);
  // Every item is keyed on its own: a bad or repeated key is counted and the reading goes on, so every
  // duplicate is reported, not only the first of the first page.
  const checker = new InputChecker(definition, source);
  const kind = definitionKinds(definition)[0];
  // DeepResearch and service-workflow items each run as their own research task workflow.
  const ownWorkflow = !definition.steps && (kind === 'deepresearch' || kind === 'workflow');
  const tally = definition.steps ? new DryRunStepTally() : undefined;
  const stepReservations: number[] = [];
  let cursor: ItemCursor | undefined;
  let count = 0;
  let filtered = 0;
  const keep = (item: SourceItem): boolean => keptByWhere(definition, item.value, params);
  for (let done = false; !done;) {
    const first = cursor === undefined;
    const page = await readItems(source, { cursor, limit: options.pageSize ?? 500 });
    if (first) checker.header(page.cursor.columns);
    ({ cursor, done } = page);
    for (const sourceItem of page.items) {
      // input.where: a row left out is never keyed, priced or run (its fields still count as the input's).
      if (!keep(sourceItem)) {
        filtered += 1;
        checker.add(sourceItem);
        continue;
      }
      const template = source.kind === 'single' ? undefined : definition.input?.key;
      const key = template === undefined ? SINGLE_ITEM_KEY : await attempt(() => itemKey(template, sourceItem, context));
      checker.add(sourceItem, key);
      if (key === undefined) continue;
      const item = { ...sourceItem, key };
      count += 1;
      if (firstItems.length < 3)
        firstItems.push({ key: item.key, ...(ownWorkflow ? { workflowId: pipelineItemWorkflowId(definition.name, runKey, item.key) } : {}) });
      if (tally) {
        const planned = planSteps(definition, item.value, params);
        tally.add(planned);
        stepReservations.push(stepReserves(planned).reserves.reduce((sum, usd) => sum + usd, 0));
        checkStepTemplates(definition, item, context, planned, fail);
        continue;
      }
      const request = await attempt(() => renderItemRequest(definition, item, context));
      if (!request) continue;
      if (request.kind !== 'workflow') {
        itemEstimates.push(estimateItem(request));
        continue;
      }
      if (!options.previewWorkflow) throw new Error('a workflow step needs a previewer for its dry run');
      const { slug, params: workflowParams, version } = request.preview;
      const body: PreviewWorkflowRequest = { workflow_params: workflowParams, ...(version ? { workflow_version: version } : {}) };
      const signature = JSON.stringify([slug, body]);
      if (!previews.has(signature)) previews.set(signature, options.previewWorkflow(slug, body));
      try {
        const preview = await previews.get(signature);
        itemEstimates.push(estimateItem(request, { estimatedCredits: preview?.estimated_credits ?? null, mode: preview?.resolved.mode }));
      } catch (error) {
        if (!(error instanceof ResearchApiError)) throw error;
        fail(`item "${item.key}" (${item.where}): workflow ${slug} preview refused: ${error.message}`);
      }
    }
  }
  for (const problem of checker.problems()) fail(problem);
  const estimate = estimateRun(definition, tally ? tally.total() : sumEstimates(itemEstimates), count, synthesis);
  const reservePerItemUsd = tally
    ? stepReservations.reduce((most, usd) => Math.max(most, usd), 0)
    : itemEstimates.reduce((most, item) => Math.max(most, item.usd, item.maxUsd), 0);
  const headroomUsd = tally
    ? Math.max(0, reservePerItemUsd - (count > 0 ? estimate.usd / count : 0))
    : itemEstimates.reduce((most, item) => Math.max(most, Math.max(item.usd, item.maxUsd) - item.usd), 0);
  const budgetNeededUsd = roundUsd(estimate.usd + headroomUsd);
  if (previews.size > 0) estimate.calls[PREVIEW_ROUTE] = previews.size;
  const schedule = definition.schedule;
  return {
    pipeline: definition.name,
    runWorkflowId: pipelineRunWorkflowId(definition.name, runKey),
    ...(kind === 'batch' ? { batchWorkflowId: researchBatchWorkflowId({ pipeline: definition.name, run: runKey, batch: '<run id>-1' }) } : {}),
    params,
    items: count,
    filtered,
    ...(tally ? { steps: tally.steps(), estimateAtLeastUsd: tally.surelyUsd() } : {}),
    firstItems,
    errorCount,
    errors,
    previews: previews.size,
    estimate,
    budgetUsd: definition.budget_usd,
    reservePerItemUsd,
    budgetNeededUsd,
    overBudget: budgetNeededUsd > definition.budget_usd,
    ...(schedule ? { nextRuns: nextScheduleTimes(schedule.cron, schedule.timezone, 3, now).map((date) => date.toISOString()) } : {}),
  };
}
