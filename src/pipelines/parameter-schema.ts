import { z } from 'zod';

/** Types a parameter may declare; `--set` values are converted to them (a list as JSON or comma-separated, an object as JSON). */
export const PARAMETER_TYPES = ['string', 'number', 'integer', 'boolean', 'date', 'list', 'object'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];

const scalarValue = z.union([z.string(), z.number(), z.boolean()]);

/** A parameter value as a definition or a run gives it: a scalar, a list of scalars (`type: list`), or an object (`type: object`). */
export const parameterValue = z.union([scalarValue, z.array(scalarValue).max(1_000, 'at most 1,000 values'), z.record(z.string(), z.unknown())]);
export type ParameterValue = z.infer<typeof parameterValue>;

/** Why `value` is not a `type`, or undefined when it is. */
export function parameterTypeProblem(type: ParameterType, value: ParameterValue): string | undefined {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? undefined : 'must be a string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'integer':
      return Number.isSafeInteger(value) ? undefined : 'must be an integer';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'date':
      return typeof value === 'string' && z.iso.date().safeParse(value).success ? undefined : 'must be a date in YYYY-MM-DD form';
    case 'list':
      return Array.isArray(value) ? undefined : 'must be a list (a JSON array of strings, numbers or booleans)';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? undefined : 'must be an object (a JSON object)';
  }
}

/** One declared parameter: its type, default (a run without a value for a parameter with no default fails), allowed values. */
export const parameterSpec = z
  .strictObject({
    type: z.enum(PARAMETER_TYPES).default('string'),
    default: parameterValue.optional(),
    options: z
      .array(z.union([z.string(), z.number()]))
      .min(1, 'needs at least one option')
      .optional()
      .meta({ description: 'The only values allowed' }),
    description: z.string().optional(),
  })
  .superRefine((spec, ctx) => {
    if (spec.default === undefined) return;
    const problem = parameterTypeProblem(spec.type, spec.default);
    if (problem) ctx.addIssue({ code: 'custom', path: ['default'], message: `${problem} (type ${spec.type})` });
    else if (spec.options && !allowedBy(spec.options, spec.default)) {
      ctx.addIssue({ code: 'custom', path: ['default'], message: `must be one of the options: ${spec.options.join(', ')}` });
    }
  });
export type ParameterSpec = z.output<typeof parameterSpec>;

/** Whether a value keeps to a parameter's options: a scalar is one of them; each value of a list is. */
export function allowedBy(options: ReadonlyArray<string | number>, value: ParameterValue): boolean {
  if (Array.isArray(value)) return value.every((entry) => options.includes(entry as string | number));
  return options.includes(value as string | number);
}
