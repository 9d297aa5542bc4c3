import type { WorkflowVariable } from '../api/schemas';
import type { VariableDefinition } from './workflows-beta-definitions';
import { EmulatorHttpError } from './types';

/** A workflow-form error (`{ error: <code>, message }`), as the workflow routes answer. */
export function workflowError(status: number, code: string, message: string): EmulatorHttpError {
  const error = new EmulatorHttpError(status, { error: code, message });
  // The base class only takes the code; callers that log the error want the explanation too.
  error.message = `${code}: ${message}`;
  return error;
}

const isDate = (value: string): boolean =>
  /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);

/** Why `value` does not fit `variable`'s type, or undefined when it does. */
function typeProblem(variable: VariableDefinition, value: unknown): string | undefined {
  switch (variable.type) {
    case 'string':
      return typeof value === 'string' && value.trim() !== '' ? undefined : 'must be a non-empty string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'integer':
      return Number.isInteger(value) ? undefined : 'must be an integer';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'enum':
      return typeof value === 'string' && (variable.options ?? []).includes(value) ? undefined : `must be one of ${(variable.options ?? []).join(', ')}`;
    case 'array':
      return Array.isArray(value) && value.every((item) => typeof item === 'string' || typeof item === 'number')
        ? undefined
        : 'must be an array of strings or numbers';
    case 'date':
      return typeof value === 'string' && isDate(value) ? undefined : 'must be a date in YYYY-MM-DD form';
  }
}

/**
 * Checks `params` against the typed variables: unknown names, missing required values and wrong
 * types are one 400 `invalid_workflow_params` naming every bad variable; defaults fill the gaps.
 * With `allowMissing` (a preview sent without parameters) a required variable may be left out.
 */
export function checkWorkflowParams(
  slug: string,
  variables: readonly VariableDefinition[],
  params: Readonly<Record<string, unknown>>,
  { allowMissing = false }: { allowMissing?: boolean } = {},
): Record<string, unknown> {
  const problems: string[] = [];
  const known = new Set(variables.map((variable) => variable.name));
  for (const name of Object.keys(params)) {
    if (!known.has(name)) problems.push(`workflow_params.${name}: is not a variable of workflow "${slug}" (variables: ${[...known].join(', ')})`);
  }
  const values: Record<string, unknown> = {};
  for (const variable of variables) {
    const given = params[variable.name];
    const value = given === undefined || given === null ? variable.default : given;
    if (value === undefined) {
      if (variable.required && !allowMissing) problems.push(`workflow_params.${variable.name}: is required (${variable.type})`);
      continue;
    }
    const problem = typeProblem(variable, value);
    if (problem) problems.push(`workflow_params.${variable.name}: ${problem}`);
    else values[variable.name] = value;
  }
  if (problems.length > 0) throw workflowError(400, 'invalid_workflow_params', problems.join('; '));
  return values;
}

/**
 * Replaces `{{name}}` with the variable's value (arrays joined with commas; absent optional ones empty).
 * Names in `keep` (required variables a preview was not given) stay as `{{name}}` placeholders.
 */
export function renderTemplate(template: string, values: Readonly<Record<string, unknown>>, keep: ReadonlySet<string> = new Set()): string {
  return template
    .replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (_, name: string) => {
      const value = values[name];
      if ((value === undefined || value === null) && keep.has(name)) return `{{${name}}}`;
      if (value === undefined || value === null) return '';
      return Array.isArray(value) ? value.join(', ') : String(value);
    })
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

const WIRE_TYPES: Record<VariableDefinition['type'], NonNullable<WorkflowVariable['type']>> = {
  string: 'text',
  number: 'number',
  integer: 'number',
  boolean: 'enum',
  enum: 'enum',
  array: 'text',
  date: 'date',
};

/** A variable as the service shows it (the JS client's `WorkflowVariable`): `key`, `label`, `type`, `validation`. */
export function wireVariable(variable: VariableDefinition): WorkflowVariable {
  const choices = variable.type === 'boolean' ? ['true', 'false'] : variable.options;
  return {
    key: variable.name,
    label: variable.description ?? variable.name,
    type: WIRE_TYPES[variable.type],
    required: variable.required === true,
    ...(variable.description ? { help: variable.description } : {}),
    ...(choices ? { validation: { enum: [...choices] } } : {}),
  };
}

/** A variable sent in a create or update body, read the emulator's way (text and textarea are strings). */
export function definitionOf(variable: WorkflowVariable): VariableDefinition {
  const choices = variable.validation?.enum;
  const type = variable.type === 'number' ? 'number' : variable.type === 'date' ? 'date' : variable.type === 'enum' ? 'enum' : 'string';
  return {
    name: variable.key,
    type,
    required: variable.required === true,
    ...((variable.label ?? variable.help) ? { description: variable.label ?? variable.help } : {}),
    ...(type === 'enum' && choices ? { options: [...choices] } : {}),
  };
}
