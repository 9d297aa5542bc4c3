import { z } from 'zod';
import { answerRequest, contentsRequest, createBatchFields, createTaskRequest, metadata, researchMode, searchRequest, hitlConfig } from '../api/schemas';
import { conditionSchema } from './condition';
import { dateOrTemplate, templateText, urlOrTemplate } from './fields';

/** A step's own `webhook_url` would replace the worker's (its intake's) completion webhook: refused, with where to go instead. */
const noWebhookUrl = z
  .never({ error: "is set by the worker (its intake's completion webhook, or polling without one); name your own receivers in notify:" })
  .optional();

// Each step reuses the request schema of its API route, so a field means and checks the same here as
// in the client. Strings may be templates: each item's rendered request is checked again by the
// route's own schema (`renderItemRequest`), so rules a template could break are enforced per item.

// Deprecated aliases stay accepted by the API client; a new definition uses the current names. The
// workflow fields belong to the `workflow` step.
const {
  input: _input,
  model: _model,
  strategy: _strategy,
  code_execution: _codeExecution,
  workflow_id: _workflowId,
  workflow_params: _workflowParams,
  workflow_version: _workflowVersion,
  ...taskFields
} = createTaskRequest.in.shape;

/** `deepresearch`: one DeepResearch task per item, with every task field of spec 2.4. */
export const deepresearchStep = z
  .strictObject({
    ...taskFields,
    webhook_url: noWebhookUrl,
    query: templateText.pipe(z.string().trim().min(1, 'must not be empty')),
    urls: z.array(urlOrTemplate).max(10, 'at most 10 URLs').optional(),
  })
  .meta({ description: 'One DeepResearch task per item (spec 2.4); strings may use {{ item.x }} and {{ params.x }}' });

/** `batch`: every item becomes a task of a service batch that shares this configuration. */
export const batchStep = z
  .strictObject({
    ...createBatchFields,
    webhook_url: noWebhookUrl,
    query: templateText.pipe(z.string().trim().min(1, 'must not be empty')),
  })
  .meta({
    description:
      'Items become tasks of service batches with shared configuration, one batch per round of up to 10,000 items within the budget (no checkpoints, deliverables, files, MCP servers or previous reports)',
  });

/** `workflow`: one run of a service workflow per item, previewed (free) before anything is spent. */
export const workflowStep = z
  .strictObject({
    workflow_id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be a workflow slug such as company-profile'),
    version: z.int().positive().optional().meta({ description: 'Pin a workflow version (recommended: versions are immutable)' }),
    params: z.record(z.string(), z.unknown()).default({}).meta({ description: 'workflow_params; string values may be templates' }),
    mode: researchMode.optional(),
    metadata: metadata.optional(),
    hitl: hitlConfig.optional(),
  })
  .meta({ description: 'One run of a service workflow per item (workflow_id and workflow_params on task creation)' });

/** The fields of Answer and Search that a step may template: the query and its date range. */
const templatedQuery = {
  query: templateText.pipe(z.string().trim().min(1, 'must not be empty')),
  start_date: dateOrTemplate.optional(),
  end_date: dateOrTemplate.optional(),
};

/** `answer`: a grounded answer per item; with `structured_output`, seconds instead of minutes for simple questions. */
export const answerStep = z.strictObject({ ...answerRequest.shape, ...templatedQuery }).meta({ description: 'One Answer request per item (spec 2.3)' });

/** `search`: one search per item, for cheap collection. */
export const searchStep = z.strictObject({ ...searchRequest.shape, ...templatedQuery }).meta({ description: 'One Search request per item (spec 2.1)' });

/** `contents`: extract up to 10 URLs per item. */
export const contentsStep = z
  .strictObject({
    ...contentsRequest.shape,
    urls: z.array(urlOrTemplate).min(1, 'needs at least one URL').max(10, 'at most 10 URLs per request'),
  })
  .meta({ description: 'One Contents request per item (spec 4.2)' });

/** The step kinds an item may run, with their schemas. */
export const ITEM_STEPS = {
  deepresearch: deepresearchStep,
  batch: batchStep,
  workflow: workflowStep,
  answer: answerStep,
  search: searchStep,
  contents: contentsStep,
} as const;
export type StepKind = keyof typeof ITEM_STEPS;

/** A strict object naming exactly one of `kinds`: the key says what the step is, its value how. */
function oneOf<K extends keyof typeof ITEM_STEPS>(kinds: readonly K[], what: string) {
  const shape = Object.fromEntries(kinds.map((kind) => [kind, ITEM_STEPS[kind].optional()])) as { [P in K]: z.ZodOptional<(typeof ITEM_STEPS)[P]> };
  return z
    .strictObject(shape)
    .superRefine((value, ctx) => {
      const given = kinds.filter((kind) => (value as Record<string, unknown>)[kind] !== undefined);
      if (given.length !== 1) {
        const names = kinds.join(', ');
        ctx.addIssue({
          code: 'custom',
          message: given.length === 0 ? `must name one ${what}: ${names}` : `names ${given.join(' and ')}; give exactly one ${what} (${names})`,
        });
      }
    })
    .meta({ minProperties: 1, maxProperties: 1 });
}

/** `step`: what runs for each item, exactly one kind. */
export const itemStep = oneOf(['deepresearch', 'batch', 'workflow', 'answer', 'search', 'contents'], 'step kind');

/** `synthesis`: one optional step over all results (the run attaches them); a DeepResearch task or an answer. */
export const synthesisStep = oneOf(['deepresearch', 'answer'], 'synthesis kind');

/** The kinds a step of `steps:` may be: every item kind but `batch`, which runs a whole run as service batches. */
export const SEQUENCE_STEP_KINDS = ['deepresearch', 'workflow', 'answer', 'search', 'contents'] as const;

/** A step id: names the step in templates (`steps.profile`), records, workflow ids and output columns. */
export const stepId = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, 'must start with a lower-case letter and use only a-z, 0-9 and _ (it names the step in templates and columns)')
  .max(40, 'at most 40 characters');

/** One step of `steps:`: its id, an optional `when:` condition, and exactly one kind. */
export const sequenceStep = z
  .strictObject({
    id: stepId,
    when: conditionSchema
      .optional()
      .meta({ description: 'Run the step only when this holds (over item, params and earlier steps); else it is skipped and costs nothing' }),
    deepresearch: deepresearchStep.optional(),
    workflow: workflowStep.optional(),
    answer: answerStep.optional(),
    search: searchStep.optional(),
    contents: contentsStep.optional(),
    batch: z.unknown().optional().meta({ description: 'Not allowed here' }),
  })
  .superRefine((value, ctx) => {
    if (value.batch !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['batch'],
        message: 'a batch step runs the whole run as service batches; it cannot be one of several steps (use deepresearch)',
      });
      return;
    }
    const given = SEQUENCE_STEP_KINDS.filter((kind) => value[kind] !== undefined);
    if (given.length !== 1) {
      const names = SEQUENCE_STEP_KINDS.join(', ');
      ctx.addIssue({
        code: 'custom',
        message: given.length === 0 ? `must name one step kind: ${names}` : `names ${given.join(' and ')}; give exactly one step kind (${names})`,
      });
    }
  });

/** `steps:`: what runs for each item, in order; a later step may read earlier results and run only `when:` they say so. */
export const itemSteps = z
  .array(sequenceStep)
  .min(1, 'needs at least one step')
  .max(10, 'at most 10 steps per item')
  .superRefine((steps, ctx) => {
    const seen = new Map<string, number>();
    steps.forEach((step, index) => {
      const first = seen.get(step.id);
      if (first !== undefined)
        ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `"${step.id}" is already the id of step ${first + 1}; step ids must be unique` });
      else seen.set(step.id, index);
    });
  });
