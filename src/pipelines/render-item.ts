import { z } from 'zod';
import {
  answerRequest,
  contentsRequest,
  createBatchRequest,
  createTaskRequest,
  formatIssuePath,
  searchRequest,
  type AnswerRequest,
  type ContentsRequest,
  type ResearchMode,
  type CreateBatchRequest,
  type NormalisedTaskRequest,
  type SearchRequest,
} from '../api';
import { batchTaskInput } from '../api/schemas';
import { renderDeep, TemplateError, type RenderOptions } from '../shared/template';
import type { PipelineDefinition } from './definition-schema';
import { definitionErrorMap } from './issue-messages';
import { ItemError } from './item-keys';
import { sequenceStepSpec, stepSpec, synthesisSpec, type SequenceStepSpec, type StepSpec } from './step-kind';
import type { KeyedItem, RunContext } from './types';

/** One item's request, rendered and checked by its route's schema: what the run sends for it. */
export type ItemRequest =
  | { kind: 'deepresearch'; request: NormalisedTaskRequest }
  | { kind: 'batch'; task: { id: string; query: string }; mode?: ResearchMode }
  | { kind: 'workflow'; request: NormalisedTaskRequest; preview: { slug: string; params: Record<string, unknown>; version?: number } }
  | { kind: 'answer'; request: AnswerRequest }
  | { kind: 'search'; request: SearchRequest }
  | { kind: 'contents'; request: ContentsRequest };

/** Renders `value` and parses it with `schema`; problems become one `ItemError` naming the item, path and rule. */
function renderChecked<S extends z.ZodType>(
  schema: S,
  value: unknown,
  context: Record<string, unknown>,
  at: string,
  item?: KeyedItem,
  options: RenderOptions & { rendered?: boolean } = {},
): z.output<S> {
  const fail = (problem: string, variable?: string): never => {
    throw new ItemError(item?.where ?? 'synthesis', problem, item?.key, variable);
  };
  let rendered: unknown;
  try {
    rendered = options.rendered ? value : renderDeep(value, context, options);
  } catch (error) {
    if (error instanceof TemplateError) return fail(`${at}: ${error.message}`, error.variable);
    throw error;
  }
  const result = schema.safeParse(rendered, { error: definitionErrorMap });
  if (!result.success) {
    return fail(result.error.issues.map((issue) => `${[at, formatIssuePath(issue.path)].filter(Boolean).join('.')}: ${issue.message}`).join('; '));
  }
  return result.data;
}

const templateContext = (context: RunContext, item?: KeyedItem): Record<string, unknown> => ({
  ...(item ? { item: item.value } : {}),
  params: context.params,
  pipeline: context.pipeline,
  run: context.run,
});

/**
 * Renders the step for one item and checks it with the API's own request schema, so every rule of
 * the route (lengths, URLs, combined limits) holds before anything is sent. Throws `ItemError`.
 */
export function renderItemRequest(definition: PipelineDefinition, item: KeyedItem, context: RunContext): ItemRequest {
  if (!definition.step) throw new Error('a definition with steps: renders each step with renderStepRequest');
  const step = stepSpec(definition.step);
  return renderStep(step, templateContext(context, item), `step.${step.kind}`, item);
}

/**
 * Renders step `index` of a definition written with `steps:` for one item, with the earlier steps'
 * results in scope (`{{ steps.profile.result.output.headcount }}`), and checks it like a single step.
 */
export function renderStepRequest(
  definition: PipelineDefinition,
  index: number,
  item: KeyedItem,
  context: RunContext,
  steps: Record<string, unknown>,
): ItemRequest {
  return renderSequenceStep(sequenceStepSpec((definition.steps ?? [])[index]!), item, context, steps);
}

/** Renders one step of `steps:` (given alone, without the rest of the definition) like `renderStepRequest`. */
export function renderSequenceStep(step: SequenceStepSpec, item: KeyedItem, context: RunContext, steps: Record<string, unknown>): ItemRequest {
  return renderStep(step, { ...templateContext(context, item), steps }, `steps.${step.id}.${step.kind}`, item);
}

function renderStep(step: StepSpec, values: Record<string, unknown>, at: string, item: KeyedItem): ItemRequest {
  switch (step.kind) {
    case 'deepresearch':
      return { kind: 'deepresearch', request: renderChecked(createTaskRequest, step.config, values, at, item) };
    case 'batch': {
      const task = renderChecked(batchTaskInput, { query: step.config.query, id: item.key }, values, at, item);
      return { kind: 'batch', task: { id: task.id ?? item.key, query: task.query }, ...(step.config.mode ? { mode: step.config.mode } : {}) };
    }
    case 'workflow': {
      const { workflow_id: slug, version, params, ...rest } = step.config;
      // Parameters keep the type of a value given whole (`"{{ item.max }}"` with max: 4 is the integer 4).
      const typedParams = params ? renderChecked(z.record(z.string(), z.unknown()), params, values, `${at}.params`, item, { keepTypes: true }) : undefined;
      // Every template is rendered once: the rendered parameters are data (an input value holding
      // `{{ ... }}` is sent as written), so the rest is rendered on its own and checked with them.
      const renderedRest = renderChecked(
        z.record(z.string(), z.unknown()),
        { ...rest, workflow_id: slug, ...(version ? { workflow_version: version } : {}) },
        values,
        at,
        item,
      );
      const request = renderChecked(createTaskRequest, { ...renderedRest, ...(typedParams ? { workflow_params: typedParams } : {}) }, values, at, item, {
        rendered: true,
      });
      return { kind: 'workflow', request, preview: { slug, params: request.workflow_params ?? {}, ...(version ? { version } : {}) } };
    }
    case 'answer':
      return { kind: 'answer', request: renderChecked(answerRequest, step.config, values, at, item) };
    case 'search':
      return { kind: 'search', request: renderChecked(searchRequest, step.config, values, at, item) };
    case 'contents':
      return { kind: 'contents', request: renderChecked(contentsRequest, step.config, values, at, item) };
  }
}

/** The shared configuration of a `batch` step, rendered once per run (it cannot use `item`). */
export function renderBatchConfig(definition: PipelineDefinition, context: RunContext): CreateBatchRequest | undefined {
  if (!definition.step) return undefined;
  const step = stepSpec(definition.step);
  if (step.kind !== 'batch') return undefined;
  const { query: _query, ...shared } = step.config;
  return renderChecked(createBatchRequest, shared, templateContext(context), 'step.batch');
}

/** The synthesis request, rendered with the run's context (the run attaches the collected results). */
export function renderSynthesisRequest(definition: PipelineDefinition, context: RunContext): ItemRequest | undefined {
  if (!definition.synthesis) return undefined;
  const synthesis = synthesisSpec(definition.synthesis);
  const values = templateContext(context);
  return synthesis.kind === 'deepresearch'
    ? { kind: 'deepresearch', request: renderChecked(createTaskRequest, synthesis.config, values, 'synthesis.deepresearch') }
    : { kind: 'answer', request: renderChecked(answerRequest, synthesis.config, values, 'synthesis.answer') };
}
