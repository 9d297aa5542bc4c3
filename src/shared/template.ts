/**
 * A tiny strict template renderer for pipeline definitions: `{{ item.company }}`, `{{ params.region }}`,
 * with an optional filter (`{{ item.name | slug }}`). No logic, no partials: a definition's templates
 * only fill values in, and a missing variable is an error rather than an empty string, because a query
 * that silently lost its subject still costs money. Dependency-free so workflow code may import it.
 */

/** A template expression: a dotted path and an optional filter. */
export interface TemplateExpression {
  /** The text between the braces, trimmed (`item.company | slug`). */
  source: string;
  /** The dotted path split into names (`['item', 'company']`). */
  path: string[];
  filter?: TemplateFilter;
}

/** Filters an expression may end with. */
export const TEMPLATE_FILTERS = ['slug', 'json', 'lower', 'upper', 'trim'] as const;
export type TemplateFilter = (typeof TEMPLATE_FILTERS)[number];

/** A template could not be parsed or rendered; `variable` names the missing or bad expression. */
export class TemplateError extends Error {
  constructor(
    message: string,
    readonly variable?: string,
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}

const EXPRESSION = /\{\{([^{}]*)\}\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$|^\d+$/;

/** True when `text` contains at least one `{{ ... }}` expression. */
export function hasTemplate(text: string): boolean {
  return text.includes('{{');
}

/** Parses every expression of `template`; throws `TemplateError` naming the first malformed one. */
export function parseTemplate(template: string): TemplateExpression[] {
  const expressions: TemplateExpression[] = [];
  for (const match of template.matchAll(EXPRESSION)) expressions.push(parseExpression(match[1] ?? ''));
  const leftover = template.replace(EXPRESSION, '');
  if (leftover.includes('{{') || leftover.includes('}}')) {
    throw new TemplateError(`unbalanced braces in "${template}": write expressions as {{ item.name }}`);
  }
  return expressions;
}

function parseExpression(raw: string): TemplateExpression {
  const source = raw.trim();
  const [pathText = '', filterText, extra] = source.split('|').map((part) => part.trim());
  if (extra !== undefined) throw new TemplateError(`{{ ${source} }}: only one filter is allowed`, source);
  const path = pathText.split('.');
  if (pathText === '' || !path.every((name) => NAME.test(name))) {
    throw new TemplateError(`{{ ${source} }}: expected a dotted name such as item.company`, source);
  }
  if (filterText === undefined) return { source, path };
  if (!(TEMPLATE_FILTERS as readonly string[]).includes(filterText)) {
    throw new TemplateError(`{{ ${source} }}: unknown filter "${filterText}" (filters: ${TEMPLATE_FILTERS.join(', ')})`, source);
  }
  return { source, path, filter: filterText as TemplateFilter };
}

/** What to do with a variable that is absent or null: fail (the default) or render nothing. */
export interface RenderOptions {
  missing?: 'throw' | 'empty';
  /**
   * A string that is exactly one expression without a filter (`"{{ item.max }}"`) becomes the value
   * itself when that is a number or a boolean, so typed parameters (a service workflow's integer
   * variable, say) keep their type. Off by default: most fields are text.
   */
  keepTypes?: boolean;
}

const SOLE_EXPRESSION = /^\s*\{\{([^{}|]*)\}\}\s*$/;

/** Renders `template` against `context`; a missing variable throws `TemplateError` naming it. */
export function renderTemplate(template: string, context: Readonly<Record<string, unknown>>, options: RenderOptions = {}): string {
  if (!hasTemplate(template)) return template;
  const expressions = parseTemplate(template);
  let position = 0;
  return template.replace(EXPRESSION, () => {
    const expression = expressions[position++] as TemplateExpression;
    const value = lookup(context, expression.path);
    if (value === undefined || value === null) {
      if (options.missing === 'empty') return '';
      throw new TemplateError(missingMessage(context, expression), expression.path.join('.'));
    }
    return applyFilter(expression.filter, value);
  });
}

function lookup(context: Readonly<Record<string, unknown>>, path: readonly string[]): unknown {
  let value: unknown = context;
  for (const name of path) {
    if (typeof value !== 'object' || value === null || !Object.prototype.hasOwnProperty.call(value, name)) return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}

function missingMessage(context: Readonly<Record<string, unknown>>, expression: TemplateExpression): string {
  const name = expression.path.join('.');
  const parent = lookup(context, expression.path.slice(0, -1));
  const last = expression.path.at(-1) ?? '';
  if (expression.path.length > 1 && typeof parent === 'object' && parent !== null && !Array.isArray(parent)) {
    const value = (parent as Record<string, unknown>)[last];
    const has = Object.keys(parent).join(', ') || 'nothing';
    return value === null
      ? `{{ ${expression.source} }}: ${name} is null`
      : `{{ ${expression.source} }}: missing variable ${name} (${expression.path.slice(0, -1).join('.')} has: ${has})`;
  }
  return `{{ ${expression.source} }}: missing variable ${name}`;
}

function applyFilter(filter: TemplateFilter | undefined, value: unknown): string {
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  switch (filter) {
    case undefined:
      return text;
    case 'json':
      return JSON.stringify(value);
    case 'lower':
      return text.toLowerCase();
    case 'upper':
      return text.toUpperCase();
    case 'trim':
      return text.trim();
    case 'slug':
      return slug(text);
  }
}

/** Lower-case letters, digits and single dashes: what the `slug` filter makes of a value. */
export function slug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Renders every string inside a JSON value (objects and arrays walked), keeping its shape. */
export function renderDeep<T>(value: T, context: Readonly<Record<string, unknown>>, options: RenderOptions = {}): T {
  if (typeof value === 'string') {
    const sole = options.keepTypes ? SOLE_EXPRESSION.exec(value) : null;
    if (sole) {
      const raw = lookup(context, parseExpression(sole[1] ?? '').path);
      if (typeof raw === 'number' || typeof raw === 'boolean') return raw as T;
    }
    return renderTemplate(value, context, options) as T;
  }
  if (Array.isArray(value)) return value.map((entry: unknown) => renderDeep(entry, context, options)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, renderDeep(entry, context, options)])) as T;
  }
  return value;
}
