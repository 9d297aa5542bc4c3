import { contentsRequest, contentsResponse } from '../api/schemas';
import { findByUrl } from './search/corpus';
import { roundUsd } from './accounts';
import { characterBudget, truncate } from './search/text';
import { generateFromSchema } from './structured-output';
import { syntheticPage } from './synthetic-page';
import type { EmulatorContext, EmulatorRoute } from './types';
import { parseRequest, shapeResponse } from './validation';

/** USD per extracted URL, and the extra per URL when a summary (an AI feature) is asked for. */
export const CONTENTS_PRICE_PER_URL = 0.001;
export const CONTENTS_AI_PRICE_PER_URL = 0.001;

type SummaryOption = boolean | string | Record<string, unknown> | undefined;

function summarise(summary: SummaryOption, title: string, content: string): unknown {
  if (summary === undefined || summary === false) return undefined;
  if (typeof summary === 'object') return generateFromSchema(summary, `${title} ${content}`);
  const sentences = content.split(/(?<=\.)\s+/).slice(0, 2).join(' ');
  return typeof summary === 'string' ? `${sentences} (Focus: ${summary.slice(0, 200)})` : sentences;
}

/** Hosts under the reserved `.invalid` TLD (RFC 2606) fail to extract, so callers can test partial failures. */
const fails = (url: string): boolean => new URL(url).hostname.endsWith('.invalid');

/**
 * `POST /v1/contents`: up to 10 URLs; corpus URLs return their document, others a deterministic
 * synthetic page. Charged per extracted URL (plus the AI surcharge with `summary`); failed URLs are free.
 */
export function contentsRoute(ctx: EmulatorContext): EmulatorRoute {
  return {
    method: 'POST',
    pattern: '/v1/contents',
    name: 'contents',
    handle: ({ body, account }) => {
      const request = parseRequest(contentsRequest, body);
      const summary: SummaryOption = request.summary;
      const withAi = summary !== undefined && summary !== false;
      const pricePerUrl = CONTENTS_PRICE_PER_URL + (withAi ? CONTENTS_AI_PRICE_PER_URL : 0);
      const budget = characterBudget(request.response_length ?? 'max');
      const failed = request.urls.filter(fails);
      const results = request.urls.filter((url) => !fails(url)).map((url) => {
        const page = findByUrl(url) ?? syntheticPage(url);
        const content = truncate(page.content, budget);
        const summaryValue = summarise(summary, page.title, content);
        return {
          url,
          title: page.title,
          content,
          length: content.length,
          price: roundUsd(pricePerUrl),
          ...(summaryValue === undefined ? {} : { summary: summaryValue }),
        };
      });
      const total = roundUsd(results.length * pricePerUrl);
      ctx.accounts.charge(account, total, 'contents');
      return {
        status: 200,
        json: shapeResponse(contentsResponse, {
          success: results.length > 0,
          error: failed.length > 0 ? `Could not extract ${failed.length} URL(s): ${failed.join(', ')}` : null,
          tx_id: `tx_${ctx.random.hex(24)}`,
          results,
          urls_requested: request.urls.length,
          urls_processed: results.length,
          urls_failed: failed.length,
          total_cost_dollars: total,
          total_characters: results.reduce((sum, result) => sum + result.length, 0),
        }),
      };
    },
  };
}
