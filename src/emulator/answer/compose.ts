import { contentText, type SearchResult } from '../../api/schemas';
import { roundUsd } from '../accounts';
import { generateFromSchema } from '../structured-output';

/** Fixed price of one Answer request (USD), before search and AI costs. */
export const ANSWER_BASE_PRICE = 0.1;
/** Emulated model prices, USD per million tokens. */
const INPUT_PRICE_PER_MILLION = 3;
const OUTPUT_PRICE_PER_MILLION = 15;

/** The answer text, its token usage and its AI cost. */
export interface ComposedAnswer {
  text: string;
  structured: boolean;
  inputTokens: number;
  outputTokens: number;
  aiCostUsd: number;
}

function firstSentence(text: string): string {
  const match = /^(.+?[.!?])(\s|$)/s.exec(text.trim());
  return (match?.[1] ?? text.trim()).replace(/\s+/g, ' ');
}

function markdownAnswer(query: string, results: readonly SearchResult[]): string {
  if (results.length === 0) {
    return `I could not find sources that answer "${query}". Try a broader question, other sources or a wider date range.`;
  }
  const points = results.slice(0, 4).map((result, index) => `- ${firstSentence(contentText(result.content))} [${index + 1}]`);
  const sources = results.map((result, index) => `[${index + 1}] ${result.title} - ${result.url}`);
  return [
    `Based on ${results.length} source${results.length === 1 ? '' : 's'}, here is what is known about "${query}":`,
    '',
    ...points,
    '',
    'Sources:',
    ...sources,
  ].join('\n');
}

/** Composes the grounded answer (Markdown with citations, or a JSON object for `structured_output`). */
export function composeAnswer(input: {
  query: string;
  results: readonly SearchResult[];
  structuredOutput?: Record<string, unknown>;
  systemInstructions?: string | null;
}): ComposedAnswer {
  const structured = input.structuredOutput !== undefined;
  const text = structured ? JSON.stringify(generateFromSchema(input.structuredOutput, input.query)) : markdownAnswer(input.query, input.results);
  const promptCharacters =
    input.query.length + (input.systemInstructions ?? '').length + input.results.reduce((sum, result) => sum + result.length + result.title.length, 0);
  const inputTokens = 250 + Math.ceil(promptCharacters / 4);
  const outputTokens = Math.ceil(text.length / 4);
  const aiCostUsd = roundUsd((inputTokens * INPUT_PRICE_PER_MILLION + outputTokens * OUTPUT_PRICE_PER_MILLION) / 1_000_000);
  return { text, structured, inputTokens, outputTokens, aiCostUsd };
}

/** Splits text into stream chunks of a few words each; concatenated they give the text back exactly. */
export function chunkText(text: string, wordsPerChunk = 6): string[] {
  const pieces = text.match(/\S+\s*|\s+/g) ?? [];
  const chunks: string[] = [];
  for (let index = 0; index < pieces.length; index += wordsPerChunk) chunks.push(pieces.slice(index, index + wordsPerChunk).join(''));
  return chunks.length > 0 ? chunks : [''];
}

/** Keeps results, best first, while their total price fits the search-data budget (`data_max_price`). */
export function withinBudget(results: readonly SearchResult[], budgetUsd: number): SearchResult[] {
  const kept: SearchResult[] = [];
  let spent = 0;
  for (const result of results) {
    if (spent + result.price > budgetUsd) break;
    spent += result.price;
    kept.push(result);
  }
  return kept;
}
