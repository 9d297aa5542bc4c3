import { z } from 'zod';
import { isRecord } from '../../shared/guards';
import { resultContent } from './search';
import { ANSWER_COUNTRY_CODES, checkDateOrder, isoDate, jsonLength, searchType, sourceBiases, sourceList } from './common';

/** Nesting depth of a JSON value (a scalar is 0, `{}` is 1). */
export function jsonDepth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce<number>((deepest, child) => Math.max(deepest, jsonDepth(child)), 0);
}

/** Number of `properties` entries declared anywhere in a JSON Schema. */
export function countSchemaProperties(schema: unknown): number {
  if (schema === null || typeof schema !== 'object') return 0;
  const children = Array.isArray(schema) ? schema : Object.values(schema);
  const own = isRecord(schema) && isRecord(schema.properties) ? Object.keys(schema.properties).length : 0;
  return own + children.reduce<number>((sum, child) => sum + countSchemaProperties(child), 0);
}

/** A JSON Schema for structured output, within the service's limits: depth 10, 50 properties, 5000 characters. */
export const structuredOutputSchema = z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
  if (jsonLength(schema) > 5000) ctx.addIssue({ code: 'custom', message: 'JSON Schema must be at most 5000 characters' });
  if (jsonDepth(schema) > 10) ctx.addIssue({ code: 'custom', message: 'JSON Schema must be at most 10 levels deep' });
  if (countSchemaProperties(schema) > 50) ctx.addIssue({ code: 'custom', message: 'JSON Schema must declare at most 50 properties' });
});

/** `POST /v1/answer` body (spec 2.3). */
export const answerRequest = z
  .strictObject({
    query: z.string().trim().min(1, 'is required and must not be empty'),
    search_type: searchType.optional(),
    included_sources: sourceList.optional(),
    excluded_sources: sourceList.optional(),
    source_biases: sourceBiases.optional(),
    data_max_price: z.number().positive().optional(),
    start_date: isoDate.optional(),
    end_date: isoDate.optional(),
    country_code: z.enum(ANSWER_COUNTRY_CODES).optional(),
    fast_mode: z.boolean().optional(),
    structured_output: structuredOutputSchema.optional(),
    system_instructions: z.string().max(2000).nullable().optional(),
  })
  .superRefine(checkDateOrder);
export type AnswerRequest = z.input<typeof answerRequest>;

/** A search result inside the answer stream; like a Search result, its content may be structured. */
export const answerSearchResult = z.looseObject({
  title: z.string(),
  url: z.string(),
  content: resultContent.optional(),
  // Both official clients require `length` (characters); the emulator sends it, older bodies may lack it.
  length: z.int().nonnegative().optional(),
});

/** First event: the search results the answer is grounded in. */
export const answerSearchResultsEvent = z.looseObject({ search_results: z.array(answerSearchResult) });

/** An OpenAI-compatible content chunk. */
export const answerContentEvent = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        delta: z.looseObject({ role: z.string().optional(), content: z.string().optional() }),
        index: z.int(),
      }),
    )
    .min(1),
});

/** The closing metadata event: transaction, usage and cost. */
export const answerMetadataEvent = z.looseObject({
  success: z.boolean(),
  tx_id: z.string(),
  data_type: z.string().optional(),
  search_results: z.array(answerSearchResult).optional(),
  search_metadata: z
    .looseObject({
      tx_ids: z.array(z.string()),
      number_of_results: z.int(),
      total_characters: z.int(),
    })
    .optional(),
  ai_usage: z.looseObject({ input_tokens: z.int(), output_tokens: z.int() }).optional(),
  cost: z.looseObject({
    total_deduction_dollars: z.number(),
    search_deduction_dollars: z.number(),
    ai_deduction_dollars: z.number(),
    contents_deduction_dollars: z.number().optional(),
  }),
});
export type AnswerMetadata = z.infer<typeof answerMetadataEvent>;
