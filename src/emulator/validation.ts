import type { z } from 'zod';
import { formatIssuePath } from '../api/errors';
import { EmulatorHttpError } from './types';

/** `a.b[0].c` from a zod issue path, as the client writes them. */
export const formatPath = formatIssuePath;

/** The text of a 400: every issue as `path: rule`, so a caller sees which field broke which rule. */
export function describeIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>, prefix = ''): string {
  return issues.map((issue) => `${formatPath([...prefixPath(prefix), ...issue.path]) || '(body)'}: ${issue.message}`).join('; ');
}

function prefixPath(prefix: string): PropertyKey[] {
  return prefix ? [prefix] : [];
}

/** Parses `value` with `schema` or throws a 400 `{ success: false, error }` naming each field and rule. */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw EmulatorHttpError.of(400, `Invalid request parameters: ${describeIssues(result.error.issues, prefix)}`);
}

/**
 * Shapes a response with its schema before it is sent: an emulator bug becomes a loud 500 here, not a
 * response the client would reject later with a confusing message.
 */
export function shapeResponse<S extends z.ZodType>(schema: S, value: z.input<S>): z.input<S> {
  // The value itself is sent, not the parse output: some response schemas unwrap or normalise.
  const result = schema.safeParse(value);
  if (result.success) return value;
  throw new Error(`emulator built an invalid response: ${describeIssues(result.error.issues)}`);
}

/**
 * Reads the deprecated mode `lite` as `standard` in a create body (`mode` or its alias `model`): both
 * official clients still offer it, and the Python client itself maps it to `standard`.
 */
export function liteAsStandard(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const record = body as Record<string, unknown>;
  if (record.mode !== 'lite' && record.model !== 'lite') return body;
  return {
    ...record,
    ...(record.mode === 'lite' ? { mode: 'standard' } : {}),
    ...(record.model === 'lite' ? { model: 'standard' } : {}),
  };
}
