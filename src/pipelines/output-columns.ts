import { parseTemplate, TemplateError } from '../shared/template';
import type { PipelineDefinition } from './definition-schema';
import { outputSchemaOf, RESULT_FIELDS, type JsonSchema } from './fan-in';
import { likelyKey } from './known-keys';
import { stepSpec } from './step-kind';

/** A column template that would write empty cells whatever the run returns: where it is and why. */
export interface OutputColumnProblem {
  path: Array<string | number>;
  message: string;
}

const didYouMean = (name: string, known: readonly string[]): string => {
  const meant = likelyKey(name, known);
  return meant ? `; did you mean ${meant}?` : '';
};

/** Why `rest` (the path below `result.output`) names nothing the step can return, or undefined when it may. */
function outputPathProblem(definition: PipelineDefinition, rest: readonly string[]): string | undefined {
  if (!definition.step) return "a steps: pipeline's outputs are per step: use {{ steps.<id>.result.output... }}";
  const step = stepSpec(definition.step);
  const schema = outputSchemaOf(definition);
  if (schema) {
    let node: JsonSchema | undefined = schema;
    const walked = ['result', 'output'];
    for (const name of rest) {
      if (!node) return undefined;
      if (node.type === 'array' || node.items) {
        if (!/^\d+$/.test(name)) return `${walked.join('.')} is a list in the step's output schema: name an entry by number (${walked.join('.')}.0)`;
        node = node.items;
      } else if (node.properties) {
        const fields = Object.keys(node.properties);
        if (!fields.includes(name))
          return `the step's output schema has no field "${name}" at ${walked.join('.')} (fields: ${fields.join(', ')})${didYouMean(name, fields)}`;
        node = node.properties[name];
      } else {
        return undefined; // a free-form object or a value whose shape the schema leaves open
      }
      walked.push(name);
    }
    return undefined;
  }
  switch (step.kind) {
    case 'answer':
      return 'the Answer step has no structured_output, so its output is text: use {{ result.output }}, or give structured_output a JSON Schema';
    case 'deepresearch':
      return 'the DeepResearch step has no JSON Schema in output_formats, so it writes a Markdown report and result.output is empty: use {{ result.report }}, or add a schema to output_formats';
    case 'search':
    case 'contents':
      return /^\d+$/.test(rest[0] ?? '') ? undefined : `result.output is the list of ${step.kind} results: name an entry by number ({{ result.output.0.url }})`;
    default:
      return undefined; // batch and workflow results are known only when they arrive: the run warns about empty columns
  }
}

/**
 * Columns of the outputs that name a result field no item can have (`result.cost`, a field the output
 * schema lacks): known when the definition is read, so they fail then rather than writing empty cells.
 */
export function outputColumnProblems(definition: PipelineDefinition): OutputColumnProblem[] {
  const problems: OutputColumnProblem[] = [];
  definition.outputs.forEach((output, index) => {
    for (const [header, template] of Object.entries(output.columns ?? {})) {
      let expressions;
      try {
        expressions = parseTemplate(template);
      } catch (error) {
        if (error instanceof TemplateError) continue; // the schema reports it
        throw error;
      }
      for (const { path, source } of expressions) {
        if (path[0] !== 'result' || path.length < 2) continue;
        const [, field = '', ...rest] = path;
        const problem = !(RESULT_FIELDS as readonly string[]).includes(field)
          ? `result has no field "${field}" (fields: ${RESULT_FIELDS.join(', ')})${didYouMean(field, RESULT_FIELDS)}`
          : field === 'output' && rest.length > 0
            ? outputPathProblem(definition, rest)
            : undefined;
        if (problem) problems.push({ path: ['outputs', index, 'columns', header], message: `{{ ${source} }}: ${problem}` });
      }
    }
  });
  return problems;
}
