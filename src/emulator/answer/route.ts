import { answerContentEvent, answerMetadataEvent, answerRequest, answerSearchResultsEvent, type SearchResult } from '../../api/schemas';
import type { FaultInjector } from '../faults';
import { runSearch, type SearchPlan } from '../search/engine';
import { selectSources } from '../search/sources';
import { roundUsd } from '../accounts';
import { totalPrice } from '../search/text';
import { realDelay } from '../tracked-clock';
import type { EmulatorContext, EmulatorRoute } from '../types';
import { parseRequest, shapeResponse } from '../validation';
import { ANSWER_BASE_PRICE, chunkText, composeAnswer, withinBudget } from './compose';

/** What the Answer route needs besides the shared context. */
export interface AnswerRouteOptions {
  faults: FaultInjector;
  /** Real-time pause between stream events, in ms. */
  streamDelayMs: number;
}

/** An Answer search result: the Search result's fields both clients' `AnswerSearchResult` read (`length` required). */
const streamResult = (result: SearchResult) => ({
  title: result.title,
  url: result.url,
  content: result.content,
  source: result.source,
  length: result.length,
  price: result.price,
  ...(result.description ? { description: result.description } : {}),
  ...(result.source_type ? { source_type: result.source_type } : {}),
  ...(result.data_type ? { data_type: result.data_type } : {}),
  ...(result.relevance_score !== undefined ? { relevance_score: result.relevance_score } : {}),
  ...(result.image_url && typeof result.image_url === 'object' ? { image_url: result.image_url } : {}),
  ...(result.publication_date ? { publication_date: result.publication_date } : {}),
});

/**
 * `POST /v1/answer`: searches, charges the whole request (0.10 USD + search + AI) up front so a 402
 * comes before any event, then streams search results, content chunks, metadata and `[DONE]`.
 */
export function answerRoute(ctx: EmulatorContext, options: AnswerRouteOptions): EmulatorRoute {
  return {
    method: 'POST',
    pattern: '/v1/answer',
    name: 'answer',
    handle: ({ body, account }) => {
      const request = parseRequest(answerRequest, body);
      const { included, excluded } = selectSources(request, account);
      const plan: SearchPlan = {
        query: request.query,
        maxResults: request.fast_mode ? 10 : 5,
        searchType: request.search_type ?? 'all',
        relevanceThreshold: 0.5,
        included,
        excluded,
        biases: request.source_biases ?? {},
        startDate: request.start_date,
        endDate: request.end_date,
        fastMode: false,
        includeAbstracts: false,
        maxCharacters: 1000,
        failOneSource: options.faults.sourceFails('answer'),
      };
      const searchTxId = `tx_${ctx.random.hex(24)}`;
      const results = withinBudget(runSearch(plan, account, ctx.random).results, request.data_max_price ?? 1);
      const answer = composeAnswer({
        query: request.query,
        results,
        structuredOutput: request.structured_output,
        systemInstructions: request.system_instructions,
      });
      const searchCost = totalPrice(results);
      const total = roundUsd(ANSWER_BASE_PRICE + searchCost + answer.aiCostUsd);
      ctx.accounts.charge(account, total, 'answer', request.query);
      const metadata = shapeResponse(answerMetadataEvent, {
        success: true,
        tx_id: `ai_tx_${ctx.random.hex(24)}`,
        data_type: answer.structured ? 'structured' : 'unstructured',
        search_results: results.map(streamResult),
        search_metadata: { tx_ids: [searchTxId], number_of_results: results.length, total_characters: results.reduce((sum, result) => sum + result.length, 0) },
        ai_usage: { input_tokens: answer.inputTokens, output_tokens: answer.outputTokens },
        cost: {
          total_deduction_dollars: total,
          search_deduction_dollars: searchCost,
          ai_deduction_dollars: roundUsd(total - searchCost),
          contents_deduction_dollars: 0,
        },
      });
      const events = [
        shapeResponse(answerSearchResultsEvent, { search_results: results.map(streamResult) }),
        ...chunkText(answer.text).map((content) => shapeResponse(answerContentEvent, { choices: [{ delta: { role: 'assistant', content }, index: 0 }] })),
        metadata,
      ];
      return { status: 200, sse: stream(events, options.streamDelayMs) };
    },
  };
}

async function* stream(events: readonly unknown[], delayMs: number): AsyncGenerator<string> {
  for (const event of events) {
    yield JSON.stringify(event);
    await realDelay(delayMs);
  }
  yield '[DONE]';
}
