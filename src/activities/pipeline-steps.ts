import { estimateItem } from '../pipelines/estimate';
import { ItemError } from '../pipelines/item-keys';
import { renderSequenceStep } from '../pipelines/render-item';
import { sequenceStepSpec, type SequenceStepSpec } from '../pipelines/step-kind';
import type { PipelineDefinition, RunContext } from '../pipelines/types';
import { stepDecision, stepsScope, type StepResultView } from '../pipelines/step-plan';
import { pipelineStepCallKey } from '../domain/ids';
import type { PipelineItemRecord, PipelineStepRecord, RunParams, StepPlan } from '../domain/pipeline-types';
import type { ActivityDeps } from './deps';
import { checkedKeyPrefix, invalidInput } from './errors';
import { readJson } from './pipeline-item-views';
import { itemRecordKey, itemResultKey, readJsonIfStored, readStoredRecord } from './pipeline-items';
import { MAX_PLANNED_ITEM_BYTES, previewOf } from './pipeline-pages';
import type { ArtifactStore } from './store';

/** Where a step's record lives: beside, not inside, the items' records (`<prefix>/steps/<item>/<step>.json`). */
export const stepRecordKey = (prefix: string, itemKey: string, stepId: string): string => `${prefix}/steps/${itemKey}/${stepId}.json`;

/** Largest stored output read back for later steps' templates and conditions. */
const MAX_READ_BYTES = 2 * 1024 * 1024;

/**
 * `planPipelineStep` input: the run, the item, which step (given alone: the input sits in history once
 * per step and item, so it carries the step, not the whole definition), and how the steps before it
 * ended (in this attempt).
 */
export interface PlanPipelineStepInput {
  /** The run's store folder. */
  prefix: string;
  runKey: string;
  runDate: string;
  params: RunParams;
  /** The pipeline's name (templates read it as `pipeline.name`). */
  pipeline?: string;
  /** Step `step` of the definition's `steps:`. */
  spec?: SequenceStepSpec;
  /** The whole definition, which workers sent before `pipeline` and `spec`: still read, so the activities they scheduled run. */
  definition?: PipelineDefinition;
  item: { key: string; index: number; where: string; value: unknown };
  step: number;
  earlier: PipelineStepRecord[];
}

/** The step to plan and the run's template context, from either form of the input. */
function stepOfInput(input: PlanPipelineStepInput): { step: SequenceStepSpec; context: RunContext } {
  const entry = input.spec ? undefined : input.definition?.steps?.[input.step];
  const step = input.spec ?? (entry ? sequenceStepSpec(entry) : undefined);
  if (!step) throw invalidInput(`the definition has no step ${input.step + 1}`);
  const pipeline = input.pipeline ?? input.definition?.name;
  if (pipeline === undefined) throw invalidInput('pipeline: the name of the pipeline must come with the step');
  return { step, context: { params: input.params, pipeline: { name: pipeline }, run: { key: input.runKey, date: input.runDate } } };
}

/** `recordPipelineStep` input. */
export interface RecordPipelineStepInput {
  prefix: string;
  itemKey: string;
  record: PipelineStepRecord;
}

/** What a finished step left for later ones: its stored output (JSON, text or results), read back. */
async function viewOfStep(store: ArtifactStore, record: PipelineStepRecord): Promise<StepResultView> {
  const view: StepResultView = { status: record.status, costUsd: record.costUsd };
  if (record.status !== 'completed') return view;
  if (record.result && record.result.bytes <= MAX_READ_BYTES) {
    view.output = ((await readJson(store, record.result.key)) as { output?: unknown }).output;
    view.report = record.result.uri;
  }
  const report = record.outputs?.report;
  if (report) {
    view.report = report.uri;
    if (report.bytes <= MAX_READ_BYTES)
      view.output = report.contentType.startsWith('application/json')
        ? await readJson(store, report.key)
        : Buffer.from(await store.get(report.key)).toString('utf8');
  }
  return view;
}

/**
 * Plans one step of a `steps:` item, spending nothing: a step an earlier attempt or execution completed
 * or skipped is reused (its record, or for a call step the stored result, says so); else its `when:` is
 * evaluated over the item and the earlier steps' results, and the step is skipped (its record written)
 * or rendered with those results, checked by its route's schema, previewed (a service workflow) and priced.
 */
export async function planPipelineStep(deps: Pick<ActivityDeps, 'api' | 'store'>, input: PlanPipelineStepInput): Promise<StepPlan> {
  const { store } = deps;
  const prefix = checkedKeyPrefix(input.prefix);
  const { step, context } = stepOfInput(input);
  const recordKey = stepRecordKey(prefix, input.item.key, step.id);
  const existing = await readStoredRecord<PipelineStepRecord>(store, recordKey);
  if (existing?.status === 'completed' || existing?.status === 'skipped') return { kind: 'reuse', record: existing };
  if (step.kind === 'answer' || step.kind === 'search' || step.kind === 'contents') {
    // The call ended and stored its result, but its record was never written (the run stopped in between).
    const result = await store.stat(itemResultKey(prefix, pipelineStepCallKey(input.item.key, step.id)));
    if (result) {
      const { costUsd } = (await readJson(store, result.key)) as { costUsd?: number };
      const record: PipelineStepRecord = { id: step.id, kind: step.kind, status: 'completed', costUsd: costUsd ?? 0, result, finishedAt: Date.now() };
      await recordPipelineStep(store, { prefix, itemKey: input.item.key, record });
      return { kind: 'reuse', record };
    }
  }
  const views = new Map<string, StepResultView>();
  for (const record of input.earlier) views.set(record.id, await viewOfStep(store, record));
  const steps = stepsScope(views);
  const decision = stepDecision(step, { item: input.item.value, params: context.params, steps });
  if (!decision.run) {
    const record: PipelineStepRecord = {
      id: step.id,
      kind: step.kind,
      status: 'skipped',
      costUsd: 0,
      skippedBecause: decision.because,
      finishedAt: Date.now(),
    };
    await recordPipelineStep(store, { prefix, itemKey: input.item.key, record });
    return { kind: 'skip', record };
  }
  try {
    const request = renderSequenceStep(step, input.item, context, steps);
    const size = Buffer.byteLength(JSON.stringify(request));
    if (size > MAX_PLANNED_ITEM_BYTES)
      return {
        kind: 'problem',
        error: `${input.item.where}: step ${step.id}: the rendered request is ${Math.ceil(size / 1024)} KB, over the ${MAX_PLANNED_ITEM_BYTES / 1024} KB a step may carry through workflow history; read a smaller part of the earlier results`,
      };
    const preview = request.kind === 'workflow' ? await previewOf(deps.api, request.preview, new Map()) : undefined;
    if (preview && 'problem' in preview) return { kind: 'problem', error: `${input.item.where}: step ${step.id}: ${preview.problem}` };
    const estimate = estimateItem(request, preview);
    const existingTask = request.kind === 'deepresearch' ? await taskLeftOpen(store, prefix, input.item.key, step.id) : undefined;
    return { kind: 'run', request, reserveUsd: Math.max(estimate.usd, estimate.maxUsd), ...(existingTask ? { existingTask } : {}) };
  } catch (error) {
    if (!(error instanceof ItemError)) throw error;
    return { kind: 'problem', error: error.message };
  }
}

/**
 * The DeepResearch task an earlier execution's cancelled step left open at the service (it waited at a
 * checkpoint, and the service would not cancel it), from the item's record: a resumed run follows that
 * task to its end instead of paying for another.
 */
async function taskLeftOpen(store: ArtifactStore, prefix: string, itemKey: string, stepId: string): Promise<string | undefined> {
  const record = (await readJsonIfStored(store, itemRecordKey(prefix, itemKey))) as PipelineItemRecord | undefined;
  const step = record?.steps?.find((entry) => entry.id === stepId);
  return record?.status === 'cancelled' && step?.status === 'cancelled' ? step.openAtService?.deepresearchId : undefined;
}

/** Writes a step's record (replaced whole): what a retry or `--resume` reuses instead of paying again. */
export async function recordPipelineStep(store: ArtifactStore, { prefix, itemKey, record }: RecordPipelineStepInput): Promise<void> {
  const folder = checkedKeyPrefix(prefix);
  await store.put(stepRecordKey(folder, itemKey, record.id), `${JSON.stringify(record)}\n`, 'application/json');
}

/** The activities that plan and record the steps of `steps:` items. */
export function pipelineStepActivities(deps: ActivityDeps) {
  return {
    planPipelineStep: (input: PlanPipelineStepInput) => planPipelineStep(deps, input),
    recordPipelineStep: (input: RecordPipelineStepInput) => recordPipelineStep(deps.store, input),
  };
}
