import { roundUsd } from '../accounts';

const STOPWORDS = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'for',
  'from',
  'has',
  'have',
  'how',
  'in',
  'into',
  'is',
  'it',
  'its',
  'of',
  'on',
  'or',
  'that',
  'the',
  'their',
  'this',
  'to',
  'was',
  'were',
  'what',
  'when',
  'which',
  'who',
  'why',
  'will',
  'with',
  'about',
  'does',
  'do',
  'latest',
  'recent',
  'tell',
  'me',
  'give',
  'find',
  'show',
  'list',
]);

/** Folds simple English plurals so "robots" matches "robot" and "studies" matches "study". */
function stem(token: string): string {
  if (token.length > 4 && token.endsWith('ies')) return `${token.slice(0, -3)}y`;
  if (token.length > 3 && token.endsWith('s') && !token.endsWith('ss')) return token.slice(0, -1);
  return token;
}

/** Lowercase word tokens without stopwords, stemmed; the unit of term-overlap relevance. */
export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((token) => token.length > 1 && !STOPWORDS.has(token)).map(stem);
}

/** Distinct tokens of a query, in order. */
export function queryTerms(query: string): string[] {
  return [...new Set(tokenize(query))];
}

/** Characters per result for each `response_length` word; an integer is taken as is. */
const RESPONSE_LENGTHS = { short: 300, medium: 1000, large: 3000, max: Number.POSITIVE_INFINITY } as const;

/** The per-result character budget of a `response_length` value (default `medium`). */
export function characterBudget(responseLength: keyof typeof RESPONSE_LENGTHS | number | undefined): number {
  if (typeof responseLength === 'number') return responseLength;
  return RESPONSE_LENGTHS[responseLength ?? 'medium'];
}

/** Cuts `text` to at most `limit` characters, at a word boundary when one is near. */
export function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit);
  const space = cut.lastIndexOf(' ');
  return (space >= limit * 0.6 ? cut.slice(0, space) : cut).trimEnd();
}

/** What a list of priced results costs, rounded as the service rounds charges. */
export function totalPrice(results: ReadonlyArray<{ price: number }>): number {
  return roundUsd(results.reduce((sum, result) => sum + result.price, 0));
}
