import type { z } from 'zod';
import { batchLimitProblem } from '../shared/batch-limits';

// Zod's default messages ("Invalid input: expected string, received number") read as a parser talking
// to itself; definitions are written by people, so issues say the rule the way the docs would. Messages
// that a schema sets itself (the API schemas' "at most 10 URLs") win over this map, as zod decides.

type RawIssue = z.core.$ZodRawIssue;

const ARTICLES: Record<string, string> = { object: 'an object', record: 'an object', array: 'a list', int: 'an integer', integer: 'an integer' };
const named = (expected: string): string => ARTICLES[expected] ?? `a ${expected}`;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return typeof value === 'string' ? `"${value.length > 40 ? `${value.slice(0, 40)}...` : value}"` : String(value);
}

function bound(issue: RawIssue & { origin?: string; minimum?: unknown; maximum?: unknown; inclusive?: boolean }, small: boolean): string {
  const limit = String(small ? issue.minimum : issue.maximum);
  switch (issue.origin) {
    case 'string':
      return small ? `must be at least ${limit} characters` : `must be at most ${limit} characters`;
    case 'array':
    case 'set':
      return small ? `needs at least ${limit} entries` : `takes at most ${limit} entries`;
    default:
      if (small) return issue.inclusive === false ? `must be more than ${limit}` : `must be at least ${limit}`;
      return issue.inclusive === false ? `must be less than ${limit}` : `must be at most ${limit}`;
  }
}

/** What one branch of a union expected, for "must be X or Y". */
function branchExpectation(issues: readonly z.core.$ZodIssue[]): string | undefined {
  const first = issues[0];
  if (!first || first.path.length > 0) return undefined;
  if (first.code === 'invalid_type') return named(first.expected);
  if (first.code === 'invalid_value') return `one of ${first.values.map(String).join('|')}`;
  return first.message;
}

/**
 * The unknown keys of an object, with why a batch cannot take the ones it refuses, and, given the keys
 * a way to guess the key each was meant to be, that guess (`querry (did you mean query?)`).
 */
export function unknownKeysMessage(keys: readonly string[], path: readonly PropertyKey[], meant?: (key: string) => string | undefined): string {
  const inBatch = path.at(-1) === 'batch';
  const reasons = keys.map((key) => (inBatch ? batchLimitProblem(key) : undefined)).filter(Boolean);
  const named = keys.map((key) => {
    const guess = meant?.(key);
    return guess ? `${key} (did you mean ${guess}?)` : key;
  });
  return `unknown keys: ${named.join(', ')}${reasons.length > 0 ? ` (${reasons.join('; ')})` : ''}`;
}

/** Zod error map for definitions and rendered requests: the rule, said plainly. */
export function definitionErrorMap(issue: RawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be ${named(issue.expected)} (got ${typeOf(issue.input)})`;
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${String(issue.values[0])}` : `must be one of ${issue.values.map(String).join('|')}`;
    case 'unrecognized_keys':
      return unknownKeysMessage(issue.keys, issue.path ?? []);
    case 'too_small':
      return bound(issue, true);
    case 'too_big':
      return bound(issue, false);
    case 'invalid_format':
      return issue.format === 'regex' ? `must match ${String(issue.pattern)}` : `must be a valid ${issue.format}`;
    case 'invalid_union': {
      // A discriminated union whose key matched no option: the key's value is at fault, not the object.
      const options = 'options' in issue && Array.isArray(issue.options) ? issue.options : undefined;
      if (issue.errors.length === 0 && options && typeof issue.discriminator === 'string') {
        const value = (issue.input as Record<string, unknown> | undefined)?.[issue.discriminator];
        const oneOf = options.map(String).join('|');
        return value === undefined ? `is required: one of ${oneOf}` : `must be one of ${oneOf} (got ${typeOf(value)})`;
      }
      const branches = [...new Set(issue.errors.map(branchExpectation))];
      return branches.every(Boolean) ? `must be ${branches.join(' or ')} (got ${typeOf(issue.input)})` : undefined;
    }
    default:
      return undefined;
  }
}
