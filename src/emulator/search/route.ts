import { searchRequest, searchResponse, type SearchResult } from '../../api/schemas';
import type { FaultInjector } from '../faults';
import { EmulatorHttpError, type Account, type EmulatorContext, type EmulatorRoute } from '../types';
import { parseRequest, shapeResponse } from '../validation';
import { runSearch, sourceKind, type SearchPlan } from './engine';
import { selectSources } from './sources';
import { characterBudget, totalPrice } from './text';

/** Results allowed without the `increased_max_results` permission. */
export const STANDARD_MAX_RESULTS = 20;

/** Turns a validated Search request into a plan; 400/403 for sources the caller cannot use. */
export function planFromSearchRequest(body: unknown, account: Account, failOneSource: boolean): SearchPlan {
  const request = parseRequest(searchRequest, body);
  const maxResults = request.max_num_results ?? 5;
  if (maxResults > STANDARD_MAX_RESULTS && !account.permissions.has('increased_max_results')) {
    throw EmulatorHttpError.of(
      400,
      `Invalid request parameters: max_num_results: at most ${STANDARD_MAX_RESULTS} without the increased_max_results permission (got ${maxResults})`,
    );
  }
  const { included, excluded } = selectSources(request, account);
  return {
    query: request.query,
    maxResults,
    searchType: request.search_type ?? 'all',
    relevanceThreshold: request.relevance_threshold ?? 0.5,
    included,
    excluded,
    biases: request.source_biases ?? {},
    // A date-time bound (sent with historical_cache) filters by its day: the corpus is dated by day.
    startDate: request.start_date?.slice(0, 10),
    endDate: request.end_date?.slice(0, 10),
    fastMode: request.fast_mode ?? false,
    includeAbstracts: request.include_abstracts ?? false,
    // url_only asks for short snippets (JS client: "returns shortened snippets").
    maxCharacters: request.url_only ? URL_ONLY_CHARACTERS : characterBudget(request.response_length),
    maxCpm: request.max_price,
    failOneSource,
  };
}

/** Characters of content per result with `url_only`. */
export const URL_ONLY_CHARACTERS = 200;

/** `results_by_source`: result counts per source kind; `web` and `proprietary` are always there (the Python client requires both). */
export function countBySource(results: readonly SearchResult[]): Record<string, number> {
  const counts: Record<string, number> = { web: 0, proprietary: 0 };
  for (const result of results) counts[sourceKind(result)] = (counts[sourceKind(result)] ?? 0) + 1;
  return counts;
}

/**
 * `POST /v1/search`, and `POST /v1/deepsearch` where the Python client sends it: 200 with results, 206
 * (same shape) when nothing matched or a source failed. Only returned results are charged; the charge
 * is refused as a whole (402) when credits are short.
 */
export function searchRoutes(ctx: EmulatorContext, faults: FaultInjector): EmulatorRoute[] {
  return [searchRoute(ctx, faults, '/v1/search', 'search'), searchRoute(ctx, faults, '/v1/deepsearch', 'deepsearch')];
}

function searchRoute(ctx: EmulatorContext, faults: FaultInjector, pattern: string, name: string): EmulatorRoute {
  return {
    method: 'POST',
    pattern,
    name,
    handle: ({ body, account }) => {
      const plan = planFromSearchRequest(body, account, faults.sourceFails(name));
      const { results, failedSources } = runSearch(plan, account, ctx.random);
      const total = totalPrice(results);
      ctx.accounts.charge(account, total, 'search', plan.query);
      const partial = results.length === 0 || failedSources.length > 0;
      return {
        status: partial ? 206 : 200,
        json: shapeResponse(searchResponse, {
          success: true,
          error: failedSources.length > 0 ? `Partial results: source ${failedSources.join(', ')} failed` : null,
          tx_id: `tx_${ctx.random.hex(24)}`,
          query: plan.query,
          results,
          results_by_source: countBySource(results),
          total_deduction_dollars: total,
          total_characters: results.reduce((sum, result) => sum + result.length, 0),
        }),
      };
    },
  };
}
