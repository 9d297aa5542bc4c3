import { z } from 'zod';
import { notifySchema, postgresOutput } from './delivery-schema';
import { parameterName, pipelineName, relativeFile, templateText } from './fields';
import { parameterSpec } from './parameter-schema';
import { scheduleSchema } from './schedule-schema';
import { conditionFields, conditionSchema } from './condition';
import { itemStep, itemSteps, synthesisStep } from './step-schema';
import { checkConditionScope, checkTemplateScope } from './template-scope';

/** `input`: the items to research, inline or from a CSV or JSONL file read page by page. */
export const inputSchema = z
  .strictObject({
    items: z
      .array(z.union([z.record(z.string(), z.unknown()), z.string(), z.number()]))
      .min(1, 'needs at least one item')
      .optional()
      .meta({ description: 'Inline items: objects ({{ item.name }}) or plain values ({{ item }})' }),
    csv: relativeFile.optional().meta({ description: 'A CSV file with a header row, relative to the definition' }),
    jsonl: relativeFile.optional().meta({ description: 'A JSON-lines file (one object per line), relative to the definition' }),
    delimiter: z.string().length(1, 'must be one character').optional().meta({ description: 'CSV field delimiter (default ,)' }),
    key: templateText.pipe(z.string().min(1, 'must not be empty')).meta({
      description: 'Template of the item key, unique per run and used in workflow ids, e.g. {{ item.domain | slug }}',
    }),
    allow_empty: z.boolean().optional().meta({
      description: 'An input without items is refused (a run of it would do nothing) unless this is true (say, a feed that is sometimes empty)',
    }),
    where: conditionSchema.optional().meta({
      description:
        'Keep only the rows for which this holds (over item and params), before anything is keyed, priced or spent, e.g. { field: item.tier, in: [A, B] }',
    }),
  })
  .superRefine((input, ctx) => {
    const sources = (['items', 'csv', 'jsonl'] as const).filter((name) => input[name] !== undefined);
    if (sources.length !== 1)
      ctx.addIssue({
        code: 'custom',
        message: sources.length === 0 ? 'needs one of items, csv or jsonl' : `gives ${sources.join(' and ')}; give exactly one of items, csv or jsonl`,
      });
    if (input.delimiter !== undefined && input.csv === undefined) ctx.addIssue({ code: 'custom', path: ['delimiter'], message: 'only applies to csv' });
  });

/** Output formats the run writes from the collected results. */
export const OUTPUT_FORMATS = ['jsonl', 'csv', 'markdown'] as const;

/** One output file of a run, in the run's output folder. */
export const outputSchema = z
  .strictObject({
    format: z.enum(OUTPUT_FORMATS),
    file: relativeFile.optional().meta({ description: 'File name in the run folder (default results.<format>); may use {{ params.x }} and {{ run.key }}' }),
    columns: z.record(z.string().min(1), templateText).optional().meta({
      description:
        "CSV and Markdown: header -> template over item and result, e.g. {{ result.output.pricing }} (the Markdown digest uses the first CSV's columns when it has none)",
    }),
    escape_formulas: z.boolean().optional().meta({
      description: 'CSV only (on unless false): prefix a quote to cells starting with = + - @ tab or CR, so spreadsheets do not run them as formulas',
    }),
  })
  .superRefine((output, ctx) => {
    if (output.format === 'jsonl' && output.columns !== undefined)
      ctx.addIssue({ code: 'custom', path: ['columns'], message: 'only applies to csv and markdown' });
    if (output.format !== 'csv' && output.escape_formulas !== undefined)
      ctx.addIssue({ code: 'custom', path: ['escape_formulas'], message: 'only applies to csv' });
  });

const definitionObject = z.strictObject({
  name: pipelineName.meta({ description: 'Names the pipeline in workflow ids and the ResearchPipeline search attribute' }),
  description: z.string().optional(),
  parameters: z.record(parameterName, parameterSpec).default({}),
  input: inputSchema.optional().meta({ description: 'Omitted: the run has one item (e.g. a report an app event asks for), keyed "single"' }),
  step: itemStep.optional().meta({ description: 'What runs for each item: one step (or give steps:)' }),
  steps: itemSteps.optional().meta({
    description:
      'What runs for each item, in order: each step has an id, a kind and an optional when:; templates read earlier results as {{ steps.<id>.result.output.x }}',
  }),
  concurrency: z
    .int()
    .min(1)
    .max(500, 'at most 500 items at once (Temporal allows 2,000 pending children per workflow)')
    .default(5)
    .meta({ description: 'Items in flight at once' }),
  start_rate_per_second: z
    .number()
    .positive()
    .max(1000)
    .default(1)
    .meta({ description: 'Item starts (requests) per second, so a large run does not meet 429s' }),
  budget_usd: z.number().positive('must be more than 0').meta({ description: 'The run starts no item that could take its spend past this' }),
  retries: z.int().min(0).max(10).default(2).meta({ description: 'Extra attempts for a failed item' }),
  on_item_failure: z.enum(['continue', 'fail_run']).default('continue').meta({ description: 'Whether one failed item (after retries) fails the run' }),
  synthesis: synthesisStep.optional(),
  outputs: z
    .array(z.union([outputSchema, postgresOutput]))
    .min(1)
    .default([{ format: 'jsonl' }]),
  notify: notifySchema.optional(),
  schedule: scheduleSchema.optional(),
});

/** The definition's rules that need more than one field (template variables, schedule parameters). */
const checkedDefinition = definitionObject.superRefine((definition, ctx) => {
  const parameters = Object.keys(definition.parameters);
  const perItem = { roots: ['item', 'params', 'pipeline', 'run'] as const, parameters };
  const perRun = { roots: ['params', 'pipeline', 'run'] as const, parameters };
  if ((definition.step === undefined) === (definition.steps === undefined))
    ctx.addIssue({
      code: 'custom',
      path: [],
      message: definition.step ? 'gives step and steps; give one (steps: for several)' : 'needs step (one per item) or steps (several per item)',
    });
  const batch = definition.step?.batch;
  if (batch) {
    // A batch shares its configuration across items: only the query is per item.
    const { query, ...shared } = batch;
    checkTemplateScope(query, ['step', 'batch', 'query'], perItem, ctx);
    checkTemplateScope(shared, ['step', 'batch'], perRun, ctx);
  } else if (definition.step) {
    checkTemplateScope(definition.step, ['step'], perItem, ctx);
  }
  const stepIds = (definition.steps ?? []).map((step) => step.id);
  (definition.steps ?? []).forEach((step, index) => {
    // A step reads the item and the steps before it; its condition too.
    const scope = { roots: ['item', 'params', 'pipeline', 'run', 'steps'] as const, parameters, steps: stepIds.slice(0, index) };
    const { when, id: _id, ...kinds } = step;
    checkTemplateScope(kinds, ['steps', index], scope, ctx);
    if (when) checkConditionScope(conditionFields(when), ['steps', index, 'when'], { ...scope, roots: ['item', 'params', 'steps'] }, ctx);
  });
  if (definition.input) checkTemplateScope(definition.input.key, ['input', 'key'], { roots: ['item', 'params'], parameters }, ctx);
  if (definition.input?.where) checkConditionScope(conditionFields(definition.input.where), ['input', 'where'], { roots: ['item', 'params'], parameters }, ctx);
  if (definition.synthesis) checkTemplateScope(definition.synthesis, ['synthesis'], perRun, ctx);
  definition.outputs.forEach((output, index) => {
    if (!('format' in output)) return;
    checkTemplateScope(output.file ?? '', ['outputs', index, 'file'], perRun, ctx);
    const columnRoots = definition.steps
      ? (['item', 'result', 'steps', 'params', 'pipeline', 'run'] as const)
      : (['item', 'result', 'params', 'pipeline', 'run'] as const);
    checkTemplateScope(output.columns ?? {}, ['outputs', index, 'columns'], { roots: columnRoots, parameters, steps: stepIds }, ctx);
  });
  definition.outputs.forEach((output, index) => {
    // With steps, a CSV without columns gets one column group per step.
    if ('format' in output && output.format === 'csv' && output.columns === undefined && !definition.steps)
      ctx.addIssue({ code: 'custom', path: ['outputs', index, 'columns'], message: 'is required for csv (header -> template)' });
  });
  for (const name of Object.keys(definition.schedule?.set ?? {})) {
    if (!parameters.includes(name))
      ctx.addIssue({
        code: 'custom',
        path: ['schedule', 'set', name],
        message: `is not a declared parameter (parameters: ${parameters.join(', ') || 'none'})`,
      });
  }
});

/** A pipeline definition (`pipelines/*.yaml`): what to research for each item, how, within which limits, and what to make of the results. */
export const pipelineDefinition = checkedDefinition.transform(({ outputs, ...definition }) => {
  // Files stay in `outputs` (a definition with only sinks still keeps its results as JSONL); sinks go to `sinks`.
  const files = outputs.filter((output) => 'format' in output);
  const sinks = outputs.flatMap((output) => ('postgres' in output ? [{ postgres: output.postgres }] : []));
  return { ...definition, outputs: files.length > 0 ? files : [{ format: 'jsonl' as const }], sinks };
});

/** A definition as written (defaults not applied). */
export type PipelineDefinitionInput = z.input<typeof pipelineDefinition>;
/** A validated definition with defaults applied: plain JSON, safe to pass to a workflow. */
export type PipelineDefinition = z.output<typeof pipelineDefinition>;
