import type { z } from 'zod';
import { hasTemplate, parseTemplate, TemplateError } from '../shared/template';

/** Variables a run provides besides items and parameters. */
export const RUN_VARIABLES = ['key', 'date'] as const;
export const PIPELINE_VARIABLES = ['name'] as const;

/** Which roots a template may use where it stands, and which parameters exist. */
export interface TemplateScope {
  roots: readonly ('item' | 'params' | 'pipeline' | 'run' | 'result' | 'steps')[];
  parameters: readonly string[];
  /** Ids of the steps a template may read (`steps.<id>`): the earlier steps of the item. */
  steps?: readonly string[];
}

/** Every string inside `value` with its path below it. */
function* strings(value: unknown, path: (string | number)[] = []): Generator<[string, (string | number)[]]> {
  if (typeof value === 'string') yield [value, path];
  else if (Array.isArray(value)) for (const [index, entry] of value.entries()) yield* strings(entry, [...path, index]);
  else if (typeof value === 'object' && value !== null) for (const [key, entry] of Object.entries(value)) yield* strings(entry, [...path, key]);
}

/** Why one expression does not fit `scope`, or undefined. */
function scopeProblem(path: readonly string[], scope: TemplateScope): string | undefined {
  const [root = '', name] = path;
  if (!(scope.roots as readonly string[]).includes(root)) return `${root} is not available here (use ${scope.roots.join(', ')})`;
  if (root === 'params') {
    if (name === undefined) return 'name a parameter, as in params.region';
    if (!scope.parameters.includes(name)) return `params.${name} is not a declared parameter (parameters: ${scope.parameters.join(', ') || 'none'})`;
  }
  if (root === 'steps') {
    const earlier = scope.steps ?? [];
    if (name === undefined) return 'name a step, as in steps.profile.result.output';
    if (!earlier.includes(name))
      return `steps.${name} is not an earlier step (${earlier.length ? `earlier: ${earlier.join(', ')}` : 'no step comes before this one'})`;
  }
  if (root === 'run' && !(RUN_VARIABLES as readonly string[]).includes(name ?? '')) return `run has ${RUN_VARIABLES.join(' and ')}`;
  if (root === 'pipeline' && !(PIPELINE_VARIABLES as readonly string[]).includes(name ?? '')) return `pipeline has ${PIPELINE_VARIABLES.join(', ')}`;
  return undefined;
}

/** Adds an issue for every field of a condition (`when:`, `where:`) that its place cannot read. */
export function checkConditionScope(
  fields: Array<{ field: string; path: (string | number)[] }>,
  path: (string | number)[],
  scope: TemplateScope,
  ctx: z.RefinementCtx,
): void {
  for (const { field, path: below } of fields) {
    const problem = scopeProblem(field.split('.'), scope);
    if (problem) ctx.addIssue({ code: 'custom', path: [...path, ...below], message: `${field}: ${problem}` });
  }
}

/**
 * Adds an issue for every template below `value` that uses a variable its place cannot have (an item
 * in a synthesis, an undeclared parameter), so such mistakes fail at load time, not mid-run.
 */
export function checkTemplateScope(value: unknown, path: (string | number)[], scope: TemplateScope, ctx: z.RefinementCtx): void {
  for (const [text, below] of strings(value)) {
    if (!hasTemplate(text)) continue;
    let expressions;
    try {
      expressions = parseTemplate(text);
    } catch (error) {
      if (error instanceof TemplateError) continue; // reported by the field's own schema
      throw error;
    }
    for (const expression of expressions) {
      const problem = scopeProblem(expression.path, scope);
      if (problem) ctx.addIssue({ code: 'custom', path: [...path, ...below], message: `{{ ${expression.source} }}: ${problem}` });
    }
  }
}
