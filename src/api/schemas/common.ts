import { z } from 'zod';
import { isRecord } from '../../shared/guards';

/** A calendar date as the service writes it: `YYYY-MM-DD`, and a real date. */
export const isoDate = z.iso.date({ error: 'must be a date in YYYY-MM-DD form' });

/** Search types shared by Search and Answer. */
export const searchType = z.enum(['all', 'web', 'proprietary', 'news']);
export type SearchType = z.infer<typeof searchType>;

/** Ranking nudges: keys are domains or URL paths, values integers from -5 to +5. */
export const sourceBiases = z.record(z.string().min(1), z.int({ error: 'must be an integer from -5 to 5' }).min(-5).max(5));

/** Domains, URLs, dataset ids, preset names, `web` or `collection:<NAME>`. */
export const sourceList = z.array(z.string().min(1, 'must not be empty'));

/** Search presets usable in `included_sources` (not in `excluded_sources`). */
export const SEARCH_PRESETS = [
  'academic',
  'finance',
  'patent',
  'transportation',
  'politics',
  'legal',
  'health',
  'genomics',
  'chemistry',
  'physics',
  'pulse',
  'cybersecurity',
  'environment',
  'automotive',
  'compliance',
  'medical',
] as const;

/** DeepResearch modes with their fixed per-task price (USD) and maximum step count (spec section 8). */
export const MODES = {
  fast: { priceUsd: 0.1, maxSteps: 10 },
  standard: { priceUsd: 0.5, maxSteps: 15 },
  heavy: { priceUsd: 2.5, maxSteps: 15 },
  max: { priceUsd: 15, maxSteps: 25 },
} as const;

/** A DeepResearch mode. */
export const researchMode = z.enum(['fast', 'standard', 'heavy', 'max']);
export type ResearchMode = z.infer<typeof researchMode>;

/**
 * A mode as the service reports it. Both official clients list `lite`, a deprecated name the Python
 * client maps to `standard` before sending; a reported `lite` reads as `standard`, the mode it became.
 */
export const reportedMode = z
  .enum(['fast', 'standard', 'heavy', 'max', 'lite'], { error: 'must be fast, standard, heavy, max (or the deprecated lite)' })
  .transform((mode): ResearchMode => (mode === 'lite' ? 'standard' : mode));

/**
 * A timestamp the service writes either as ISO 8601 text (the Python client's type) or as a number (the JS
 * client's type for list items), read as ISO text. Numbers below 1e11 are taken as Unix seconds, others as
 * milliseconds: no date after 1973 is ambiguous under that rule.
 */
export const serviceTimestamp = z.union([
  z
    .string()
    .min(1)
    .refine((text) => !Number.isNaN(Date.parse(text)), 'must be an ISO 8601 date-time'),
  z
    .number()
    .nonnegative()
    .transform((value) => new Date(value < 1e11 ? value * 1000 : value).toISOString()),
]);

/** Accepts a bare array, or the array under `key` of a wrapper object (some deployments wrap lists). */
export function arrayOrWrapped<S extends z.ZodType>(key: string, item: S) {
  return z.preprocess((body) => (isRecord(body) && Array.isArray(body[key]) ? body[key] : body), z.array(item));
}

/** Free-form key-value pairs attached to a task or batch. */
export const metadata = z.record(z.string(), z.unknown());

/** The common error body: `{ success: false, error }`. */
export const errorBody = z.looseObject({ success: z.literal(false), error: z.string() });
export type ErrorBody = z.infer<typeof errorBody>;

/** The workflow routes' error body: `{ error: <code>, message }`. */
export const workflowErrorBody = z.looseObject({ error: z.string(), message: z.string() });
export type WorkflowErrorBody = z.infer<typeof workflowErrorBody>;

/**
 * The `{ success, message, deepresearch_id }` acknowledgement of task actions (update, cancel, delete,
 * and with `public` the visibility toggle). The spec's bodies carry `success`; older valyu-py releases
 * add `success` themselves and so describe bodies without it. Both read: a 2xx body without `success`
 * is a success, and a missing `message` reads as empty text.
 */
export const taskActionResponse = z.looseObject({
  success: z.boolean().default(true),
  message: z.string().default(''),
  deepresearch_id: z.string(),
});
export type TaskActionResponse = z.infer<typeof taskActionResponse>;

/** Length of a value serialised as JSON: how the service measures schema-size limits. */
export function jsonLength(value: unknown): number {
  return JSON.stringify(value)?.length ?? 0;
}

/** The ISO 3166-1 alpha-2 codes Answer accepts, plus `ALL`. */
export const ANSWER_COUNTRY_CODES = [
  'ALL',
  'AR',
  'AU',
  'AT',
  'BE',
  'BR',
  'CA',
  'CL',
  'DK',
  'FI',
  'FR',
  'DE',
  'HK',
  'IN',
  'ID',
  'IT',
  'JP',
  'KR',
  'MY',
  'MX',
  'NL',
  'NZ',
  'NO',
  'CN',
  'PL',
  'PT',
  'PH',
  'RU',
  'SA',
  'ZA',
  'ES',
  'SE',
  'CH',
  'TW',
  'TR',
  'GB',
  'US',
] as const;

/** Adds an issue unless `start <= end` for two optional dates. */
export function checkDateOrder(value: { start_date?: string | undefined; end_date?: string | undefined }, ctx: z.RefinementCtx): void {
  if (value.start_date && value.end_date && value.start_date > value.end_date) {
    ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'must not be before start_date' });
  }
}
