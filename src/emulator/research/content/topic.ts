const STOP_WORDS = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'can',
  'do',
  'does',
  'for',
  'from',
  'how',
  'in',
  'into',
  'is',
  'it',
  'its',
  'of',
  'on',
  'or',
  'our',
  'should',
  'that',
  'the',
  'their',
  'this',
  'to',
  'vs',
  'was',
  'what',
  'when',
  'which',
  'who',
  'why',
  'will',
  'with',
  'we',
  'you',
  'your',
  'about',
  'between',
  'over',
  'most',
  'more',
  'than',
  'there',
  'please',
  'research',
  'report',
  'analyse',
  'analyze',
  'find',
  'give',
  'me',
  'us',
  'list',
  'compare',
  'summarise',
  'summarize',
]);

/** A short title and the salient keywords of a query, used to make generated text about the query. */
export interface Topic {
  title: string;
  keywords: string[];
  /** A URL-safe slug of the keywords, for generated source paths. */
  slug: string;
}

/** Derives a topic from free text (no language model: the first salient words in order). */
export function topicOf(query: string): Topic {
  const words = query
    .replace(/[^\p{L}\p{N}\s-]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);
  const keywords: string[] = [];
  for (const word of words) {
    const lower = word.toLowerCase();
    if (lower.length < 3 || STOP_WORDS.has(lower) || keywords.some((known) => known.toLowerCase() === lower)) continue;
    keywords.push(word);
    if (keywords.length === 6) break;
  }
  if (keywords.length === 0) keywords.push('topic');
  const firstLine = query.trim().split(/\n/)[0] ?? query;
  const clipped = firstLine.length > 90 ? `${firstLine.slice(0, 87).trimEnd()}...` : firstLine;
  const title = clipped.charAt(0).toUpperCase() + clipped.slice(1);
  const slug =
    keywords
      .slice(0, 4)
      .join('-')
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '') || 'topic';
  return { title, keywords, slug };
}
