import { z } from 'zod';

// A small declarative condition language for `when:` (a step runs only if it holds) and `input.where:`
// (a row is kept only if it holds). No expressions are evaluated: a condition is data, checked by its
// schema, so a bad one fails at load time naming its path, and evaluating it can never run code.
//
//   { field: item.tier, equals: A }
//   { field: steps.profile.result.output.headcount, gte: 500 }
//   { all: [ { field: item.country, in: [FR, DE] }, { not: { field: item.domain, exists: true } } ] }

/** Operators of a comparison, with what each takes. */
const OPERATORS = ['equals', 'not_equals', 'in', 'not_in', 'gt', 'gte', 'lt', 'lte', 'contains', 'exists'] as const;
type Operator = (typeof OPERATORS)[number];

const plain = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const fieldPath = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/, 'must be a dotted path such as item.tier or steps.profile.result.output.headcount');

/** One comparison: a field and exactly one operator. */
const comparison = z
  .strictObject({
    field: fieldPath,
    equals: plain.optional(),
    not_equals: plain.optional(),
    in: z.array(plain).min(1, 'needs at least one value').optional(),
    not_in: z.array(plain).min(1, 'needs at least one value').optional(),
    gt: z.number().optional(),
    gte: z.number().optional(),
    lt: z.number().optional(),
    lte: z.number().optional(),
    contains: plain.optional(),
    exists: z.boolean().optional(),
  })
  .superRefine((value, ctx) => {
    const given = OPERATORS.filter((operator) => value[operator] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({
        code: 'custom',
        message:
          given.length === 0
            ? `needs one operator: ${OPERATORS.join(', ')}`
            : `gives ${given.join(' and ')}; give exactly one operator (combine comparisons with all: or any:)`,
      });
  });

/** A condition as written. */
export type Condition = ({ field: string } & Partial<Record<Operator, unknown>>) | { all: Condition[] } | { any: Condition[] } | { not: Condition };

/** `when:` / `where:`: a comparison, or `all:` / `any:` of conditions, or `not:` one. */
export const conditionSchema: z.ZodType<Condition> = z.lazy(() =>
  z.union([
    comparison,
    z.strictObject({ all: z.array(conditionSchema).min(1, 'needs at least one condition') }),
    z.strictObject({ any: z.array(conditionSchema).min(1, 'needs at least one condition') }),
    z.strictObject({ not: conditionSchema }),
  ]),
);

/** Every field a condition reads, with its path below the condition (for scope checks at load time). */
export function conditionFields(condition: Condition, path: (string | number)[] = []): Array<{ field: string; path: (string | number)[] }> {
  if ('all' in condition) return condition.all.flatMap((entry, index) => conditionFields(entry, [...path, 'all', index]));
  if ('any' in condition) return condition.any.flatMap((entry, index) => conditionFields(entry, [...path, 'any', index]));
  if ('not' in condition) return conditionFields(condition.not, [...path, 'not']);
  return [{ field: condition.field, path: [...path, 'field'] }];
}

/** A value not known yet (a step result in a dry run): the condition may come out either way. */
export const UNKNOWN: unique symbol = Symbol('unknown');

/** The value at a dotted path; `UNKNOWN` below a root the caller marks unknown, undefined when absent. */
function lookup(scope: Record<string, unknown>, field: string, unknownRoots: readonly string[]): unknown {
  const names = field.split('.');
  if (unknownRoots.includes(names[0] ?? '')) return UNKNOWN;
  let value: unknown = scope;
  for (const name of names) {
    if (typeof value !== 'object' || value === null || !Object.prototype.hasOwnProperty.call(value, name)) return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}

/** A number from a number or a numeric string (CSV cells are text), else undefined. */
function numeric(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

/** Two plain values equal as a CSV reader means it: `"120"` equals 120, `"true"` equals true. */
function same(value: unknown, expected: unknown): boolean {
  if (value === expected) return true;
  if (value === undefined || value === null || expected === null) return false;
  if (typeof value === 'object') return false;
  return String(value) === String(expected);
}

function compare(value: unknown, condition: { field: string } & Partial<Record<Operator, unknown>>): boolean {
  if (condition.exists !== undefined) return (value !== undefined && value !== null && value !== '') === condition.exists;
  if (condition.equals !== undefined) return same(value, condition.equals);
  if (condition.not_equals !== undefined) return !same(value, condition.not_equals);
  if (condition.in !== undefined) return (condition.in as unknown[]).some((entry) => same(value, entry));
  if (condition.not_in !== undefined) return !(condition.not_in as unknown[]).some((entry) => same(value, entry));
  if (condition.contains !== undefined) {
    if (Array.isArray(value)) return value.some((entry) => same(entry, condition.contains));
    return typeof value === 'string' && value.toLowerCase().includes(String(condition.contains).toLowerCase());
  }
  // An ordering over a value that is not a number (missing, text) does not hold.
  const number = numeric(value);
  if (number === undefined) return false;
  if (condition.gt !== undefined) return number > (condition.gt as number);
  if (condition.gte !== undefined) return number >= (condition.gte as number);
  if (condition.lt !== undefined) return number < (condition.lt as number);
  if (condition.lte !== undefined) return number <= (condition.lte as number);
  return false;
}

/**
 * Evaluates a condition over `scope` (`item`, `params`, `steps`). Returns undefined when the answer
 * depends on a root listed in `unknownRoots` (a dry run does not know step results): `all` is false as
 * soon as one part is false, `any` true as soon as one is true, whatever the unknown parts are.
 */
export function evaluateCondition(condition: Condition, scope: Record<string, unknown>, unknownRoots: readonly string[] = []): boolean | undefined {
  if ('all' in condition) {
    const parts = condition.all.map((entry) => evaluateCondition(entry, scope, unknownRoots));
    return parts.includes(false) ? false : parts.includes(undefined) ? undefined : true;
  }
  if ('any' in condition) {
    const parts = condition.any.map((entry) => evaluateCondition(entry, scope, unknownRoots));
    return parts.includes(true) ? true : parts.includes(undefined) ? undefined : false;
  }
  if ('not' in condition) {
    const inner = evaluateCondition(condition.not, scope, unknownRoots);
    return inner === undefined ? undefined : !inner;
  }
  const value = lookup(scope, condition.field, unknownRoots);
  return value === UNKNOWN ? undefined : compare(value, condition);
}

const shown = (value: unknown): string => JSON.stringify(value);

/** The condition in words, for skipped steps and dry-run lines (`item.tier equals "A"`). */
export function describeCondition(condition: Condition): string {
  if ('all' in condition) return condition.all.map((entry) => `(${describeCondition(entry)})`).join(' and ');
  if ('any' in condition) return condition.any.map((entry) => `(${describeCondition(entry)})`).join(' or ');
  if ('not' in condition) return `not (${describeCondition(condition.not)})`;
  const operator = OPERATORS.find((name) => condition[name] !== undefined) ?? 'exists';
  return `${condition.field} ${operator.replace('_', ' ')} ${shown(condition[operator])}`;
}
