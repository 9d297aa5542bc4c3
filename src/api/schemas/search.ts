import { z } from 'zod';
import { checkDateOrder, isoDate, searchType, sourceBiases, sourceList, SEARCH_PRESETS } from './common';

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
    start_date: isoDate.optional(),
    end_date: isoDate.optional(),
    country_code: z.string().regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code').optional(),
    is_tool_call: z.boolean().optional(),
    fast_mode: z.boolean().optional(),
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

/** One ranked search result (spec 2.2). */
export const searchResult = z.looseObject({
  id: z.string(),
  title: z.string(),
  url: z.string(),
  content: z.string(),
  description: z.string().optional(),
  source: z.string(),
  price: z.number(),
  length: z.int(),
  image_url: z.string().nullable().optional(),
  relevance_score: z.number().min(0).max(1).optional(),
  data_type: z.string().optional(),
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

/** `POST /v1/contents` body (spec 4.2): up to 10 URLs. */
export const contentsRequest = z.looseObject({
  urls: z.array(z.url({ error: 'must be a URL' })).min(1, 'needs at least one URL').max(10, 'at most 10 URLs per request'),
  summary: z.union([z.boolean(), z.string(), z.record(z.string(), z.unknown())]).optional(),
  extract_effort: z.enum(['normal', 'high', 'auto']).optional(),
  response_length: z.union([z.enum(['short', 'medium', 'large', 'max']), z.int().positive()]).optional(),
});
export type ContentsRequest = z.input<typeof contentsRequest>;

/** One extracted page. The spec does not show the response shape; this is what the service returns. */
export const contentsResult = z.looseObject({
  url: z.string(),
  title: z.string().optional(),
  content: z.union([z.string(), z.record(z.string(), z.unknown())]),
  length: z.int().optional(),
  price: z.number().optional(),
  summary: z.unknown().optional(),
});

/** `POST /v1/contents` response body. */
export const contentsResponse = z.looseObject({
  success: z.boolean(),
  error: z.string().nullable().optional(),
  tx_id: z.string().optional(),
  results: z.array(contentsResult),
  urls_requested: z.int().optional(),
  urls_processed: z.int().optional(),
  urls_failed: z.int().optional(),
  total_cost_dollars: z.number().optional(),
  total_characters: z.int().optional(),
});
export type ContentsResponse = z.infer<typeof contentsResponse>;
