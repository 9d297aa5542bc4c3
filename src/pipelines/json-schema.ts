import { z } from 'zod';
import { pipelineDefinition } from './definition-schema';

/**
 * The JSON Schema of a definition, generated from the zod schema (never written twice), for editors
 * to complete and check `pipelines/*.yaml`. It describes the input side (defaults optional); rules
 * that need code (template variables, cron fields, combined lengths) are checked by `rp pipelines validate`.
 */
export function pipelineJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(pipelineDefinition, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
  return {
    ...schema,
    $id: 'https://research-pipelines.local/schemas/pipeline-definition.json',
    title: 'Research pipeline definition',
    description: 'What to research for each item of an input, how, within which budget and concurrency, and what to make of the results.',
  };
}
