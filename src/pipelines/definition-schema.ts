import { z } from 'zod';
import { parameterName, pipelineName, relativeFile, templateText } from './fields';
import { parameterSpec } from './parameter-schema';
import { scheduleSchema } from './schedule-schema';
import { itemStep, synthesisStep } from './step-schema';
import { checkTemplateScope } from './template-scope';

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
    columns: z
      .record(z.string().min(1), templateText)
      .optional()
      .meta({ description: 'CSV only: header -> template over item and result, e.g. {{ result.output.pricing }}' }),
    escape_formulas: z.boolean().optional().meta({
      description: 'CSV only (on unless false): prefix a quote to cells starting with = + - @ tab or CR, so spreadsheets do not run them as formulas',
    }),
  })
  .superRefine((output, ctx) => {
    if (output.format === 'csv' && output.columns === undefined)
      ctx.addIssue({ code: 'custom', path: ['columns'], message: 'is required for csv (header -> template)' });
    if (output.format !== 'csv' && output.columns !== undefined) ctx.addIssue({ code: 'custom', path: ['columns'], message: 'only applies to csv' });
  });

const definitionObject = z.strictObject({
  name: pipelineName.meta({ description: 'Names the pipeline in workflow ids and the ResearchPipeline search attribute' }),
  description: z.string().optional(),
  parameters: z.record(parameterName, parameterSpec).default({}),
  input: inputSchema.optional().meta({ description: 'Omitted: the run has one item (e.g. a report an app event asks for), keyed "single"' }),
  step: itemStep,
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
    .array(outputSchema)
    .min(1)
    .default([{ format: 'jsonl' }]),
  schedule: scheduleSchema.optional(),
});

/** A pipeline definition (`pipelines/*.yaml`): what to research for each item, how, within which limits, and what to make of the results. */
export const pipelineDefinition = definitionObject.superRefine((definition, ctx) => {
  const parameters = Object.keys(definition.parameters);
  const perItem = { roots: ['item', 'params', 'pipeline', 'run'] as const, parameters };
  const perRun = { roots: ['params', 'pipeline', 'run'] as const, parameters };
  const { batch } = definition.step;
  if (batch) {
    // A batch shares its configuration across items: only the query is per item.
    const { query, ...shared } = batch;
    checkTemplateScope(query, ['step', 'batch', 'query'], perItem, ctx);
    checkTemplateScope(shared, ['step', 'batch'], perRun, ctx);
  } else {
    checkTemplateScope(definition.step, ['step'], perItem, ctx);
  }
  if (definition.input) checkTemplateScope(definition.input.key, ['input', 'key'], { roots: ['item', 'params'], parameters }, ctx);
  if (definition.synthesis) checkTemplateScope(definition.synthesis, ['synthesis'], perRun, ctx);
  definition.outputs.forEach((output, index) => {
    checkTemplateScope(output.file ?? '', ['outputs', index, 'file'], perRun, ctx);
    checkTemplateScope(output.columns ?? {}, ['outputs', index, 'columns'], { roots: ['item', 'result', 'params', 'pipeline', 'run'], parameters }, ctx);
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
/** A definition as written (defaults not applied). */
export type PipelineDefinitionInput = z.input<typeof pipelineDefinition>;
/** A validated definition with defaults applied: plain JSON, safe to pass to a workflow. */
export type PipelineDefinition = z.output<typeof pipelineDefinition>;
