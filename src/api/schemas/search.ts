import { z } from 'zod';
import { isRecord } from '../../shared/guards';
import { checkDateOrder, isoDate, searchType, sourceBiases, sourceList, SEARCH_PRESETS } from './common';
import { webhookUrl } from './webhook-url';

/**
 * A date bound: `YYYY-MM-DD`, or (JS client 2.10) a full ISO 8601 date-time, which the service accepts
 * with `historical_cache` for a sub-day cut-off.
 */
export const dateBound = z.union([isoDate, z.iso.datetime({ offset: true, local: true })], { error: 'must be YYYY-MM-DD or an ISO 8601 date-time' });

/** How strictly `historical_cache` keeps to cached snapshots. */
export const historicalCacheStrict = z.enum(['off', 'prefer', 'only']);

/** `POST /v1/search` body (spec 2.1). Unknown properties are rejected, as the service does. */
export const searchRequest = z
  .strictObject({
    query: z.string().trim().min(1, 'is required and must not be empty'),
    max_num_results: z.int().min(1).max(100).optional(),
    search_type: searchType.optional(),
    max_price: z.number().positive().optional(),
    relevance_threshold: z.number().min(0).max(1).optional(),
    included_sources: sourceList.optional(),
    excluded_sources: sourceList.optional(),
    source_biases: sourceBiases.optional(),
    include_abstracts: z.boolean().optional(),
    response_length: z.union([z.enum(['short', 'medium', 'large', 'max']), z.int().positive()]).optional(),
    start_date: dateBound.optional(),
    end_date: dateBound.optional(),
    country_code: z
      .string()
      .regex(/^([A-Za-z]{2}|ALL)$/, 'must be an ISO 3166-1 alpha-2 code or ALL')
      .optional(),
    is_tool_call: z.boolean().optional(),
    fast_mode: z.boolean().optional(),
    category: z.string().min(1, 'must not be empty').optional(),
    url_only: z.boolean().optional(),
    historical_cache: z.boolean().optional(),
    historical_cache_strict: historicalCacheStrict.optional(),
    instructions: z.string().min(1, 'must not be empty').optional(),
  })
  .superRefine((value, ctx) => {
    checkDateOrder(value, ctx);
    value.excluded_sources?.forEach((source, index) => {
      if ((SEARCH_PRESETS as readonly string[]).includes(source)) {
        ctx.addIssue({ code: 'custom', path: ['excluded_sources', index], message: `presets such as "${source}" are not supported in excluded_sources` });
      }
    });
  });
export type SearchRequest = z.input<typeof searchRequest>;

/**
 * A result's content: text, or (a structured dataset such as market data) an object or an array of
 * records; both clients type it `string | object | array`.
 */
export const resultContent = z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())], {
  error: 'must be a string, an object or an array',
});

/** A result's content as text: structured content as its JSON. */
export function contentText(content: z.infer<typeof resultContent>): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}

/** Image links of a result: the clients type it as an object of named URLs; the spec shows a string. Both are read. */
export const resultImages = z.union([z.record(z.string(), z.string()), z.string()]).nullable();

/** One ranked search result (spec 2.2, widened to what the official clients show). */
export const searchResult = z.looseObject({
  id: z.string().optional(),
  title: z.string(),
  url: z.string(),
  content: resultContent,
  description: z.string().optional(),
  source: z.string(),
  price: z.number(),
  length: z.int(),
  image_url: resultImages.optional(),
  relevance_score: z.number().min(0).max(1).optional(),
  data_type: z.enum(['structured', 'unstructured']).optional(),
  source_type: z.string().optional(),
  publication_date: z.string().optional(),
  doi: z.string().optional(),
  authors: z.array(z.string()).optional(),
});
export type SearchResult = z.infer<typeof searchResult>;

/** `POST /v1/search` response body (200 or 206). */
export const searchResponse = z.looseObject({
  success: z.boolean(),
  error: z.string().nullable().optional(),
  tx_id: z.string(),
  query: z.string(),
  results: z.array(searchResult),
  results_by_source: z.record(z.string(), z.int()),
  total_deduction_dollars: z.number(),
  total_characters: z.int(),
});
/** A search response; `partial` is true when the service answered 206. */
export type SearchResponse = z.infer<typeof searchResponse> & { partial: boolean };

const contentsFields = {
  urls: z.array(z.url({ error: 'must be a URL' })).min(1, 'needs at least one URL'),
  summary: z.union([z.boolean(), z.string(), z.record(z.string(), z.unknown())]).optional(),
  extract_effort: z.enum(['normal', 'high', 'auto']).optional(),
  response_length: z.union([z.enum(['short', 'medium', 'large', 'max']), z.int().positive()]).optional(),
  max_price_dollars: z.number().positive().optional(),
  screenshot: z.boolean().optional(),
  start_date: dateBound.optional(),
  end_date: dateBound.optional(),
  historical_cache: z.boolean().optional(),
  historical_cache_strict: historicalCacheStrict.optional(),
};

/** `POST /v1/contents` body, answered at once: up to 10 URLs (the fields the official clients send). */
export const contentsRequest = z
  .strictObject({
    ...contentsFields,
    urls: contentsFields.urls.max(10, 'at most 10 URLs per request (use a contents job for up to 50)'),
    async: z.literal(false).optional(),
  })
  .superRefine(checkDateOrder);
export type ContentsRequest = z.input<typeof contentsRequest>;

/** `POST /v1/contents` body with `async: true`: a job of up to 50 URLs, answered 202; `webhook_url` is told when it ends. */
export const contentsJobRequest = z
  .strictObject({ ...contentsFields, urls: contentsFields.urls.max(50, 'at most 50 URLs per job'), async: z.literal(true), webhook_url: webhookUrl.optional() })
  .superRefine(checkDateOrder);
export type ContentsJobRequest = z.input<typeof contentsJobRequest>;

/** One extracted page (the JS client's `ContentResultSuccess`). */
export const contentsSuccess = z.looseObject({
  url: z.string(),
  status: z.literal('success'),
  title: z.string(),
  content: z.union([z.string(), z.number()]),
  length: z.int().min(0),
  source: z.string(),
  price: z.number().nonnegative().optional(),
  description: z.string().optional(),
  summary: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  summary_success: z.boolean().optional(),
  data_type: z.string().optional(),
  image_url: resultImages.optional(),
  screenshot_url: z.string().nullable().optional(),
});

/** A URL that could not be extracted: no content, only why. */
export const contentsFailure = z.looseObject({ url: z.string(), status: z.literal('failed'), error: z.string() });

/**
 * One result of Contents, keyed on `status`. The Python client's type has no `status` (only successes); a
 * result without one is read as a success, so its fields are still checked.
 */
export const contentsResult = z.preprocess(
  (item) => (isRecord(item) && item.status === undefined ? { ...item, status: 'success' } : item),
  z.discriminatedUnion('status', [contentsSuccess, contentsFailure]),
);
export type ContentsResult = z.infer<typeof contentsResult>;

/** `POST /v1/contents` response body. */
export const contentsResponse = z.looseObject({
  success: z.boolean(),
  error: z.string().nullable().optional(),
  tx_id: z.string().optional(),
  results: z.array(contentsResult),
  urls_requested: z.int().min(0).optional(),
  urls_processed: z.int().min(0).optional(),
  urls_failed: z.int().min(0).optional(),
  total_cost_dollars: z.number().nonnegative().optional(),
  total_characters: z.int().min(0).optional(),
});
export type ContentsResponse = z.infer<typeof contentsResponse>;

/** States of a contents job; `completed`, `partial` and `failed` are final. */
export const contentsJobStatus = z.enum(['pending', 'processing', 'completed', 'partial', 'failed']);

/** The 202 answer to a contents job (snake_case, as the JS client's normaliser reads it first). */
export const contentsJobCreated = z.looseObject({
  success: z.boolean().optional(),
  job_id: z.string().min(1),
  status: z.literal('pending'),
  urls_total: z.int().min(1),
  poll_url: z.string().optional(),
  webhook_secret: z.string().optional(),
  tx_id: z.string().optional(),
});
export type ContentsJobCreated = z.infer<typeof contentsJobCreated>;

/** `GET /v1/contents/jobs/{id}`: progress, and the results once the job has ended. */
export const contentsJob = z.looseObject({
  success: z.boolean().optional(),
  job_id: z.string().min(1),
  status: contentsJobStatus,
  urls_total: z.int().min(0),
  urls_processed: z.int().min(0),
  urls_failed: z.int().min(0),
  created_at: z.number(),
  updated_at: z.number(),
  current_batch: z.int().min(0).optional(),
  total_batches: z.int().min(0).optional(),
  results: z.array(contentsResult).optional(),
  actual_cost_dollars: z.number().nonnegative().optional(),
  error: z.string().optional(),
});
export type ContentsJob = z.infer<typeof contentsJob>;
