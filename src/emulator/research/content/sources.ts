import type { ResearchMode } from '../../../api/schemas/common';
import type { TaskRecord } from '../task-record';
import { seededRandom } from './rng';
import { topicOf, type Topic } from './topic';

/** A source a task found and cites (a type alias, so it fits the loose `sources` item schema). */
export type GeneratedSource = {
  title: string;
  url: string;
  domain: string;
  source: string;
  snippet: string;
  publication_date: string;
  relevance_score: number;
};

interface Publisher {
  domain: string;
  name: string;
  /** `web` or the dataset the source would come from. */
  source: string;
  path: string;
}

const PUBLISHERS: readonly Publisher[] = [
  { domain: 'en.wikipedia.org', name: 'Wikipedia', source: 'web', path: 'wiki' },
  { domain: 'arxiv.org', name: 'arXiv', source: 'svc/svc-arxiv', path: 'abs' },
  { domain: 'pubmed.ncbi.nlm.nih.gov', name: 'PubMed', source: 'svc/svc-pubmed', path: 'articles' },
  { domain: 'www.reuters.com', name: 'Reuters', source: 'web', path: 'business' },
  { domain: 'www.ft.com', name: 'Financial Times', source: 'web', path: 'content' },
  { domain: 'www.sec.gov', name: 'SEC EDGAR', source: 'svc/svc-sec-filings', path: 'filings' },
  { domain: 'www.nature.com', name: 'Nature', source: 'web', path: 'articles' },
  { domain: 'www.oecd.org', name: 'OECD', source: 'web', path: 'publications' },
  { domain: 'data.worldbank.org', name: 'World Bank Open Data', source: 'svc/svc-worldbank-indicators', path: 'indicator' },
  { domain: 'www.imf.org', name: 'IMF', source: 'svc/svc-imf', path: 'en/publications' },
  { domain: 'www.mckinsey.com', name: 'McKinsey & Company', source: 'web', path: 'insights' },
  { domain: 'www.statista.com', name: 'Statista', source: 'web', path: 'statistics' },
  { domain: 'www.bloomberg.com', name: 'Bloomberg', source: 'web', path: 'news/articles' },
  { domain: 'www.economist.com', name: 'The Economist', source: 'web', path: 'briefing' },
  { domain: 'techcrunch.com', name: 'TechCrunch', source: 'web', path: '2025' },
  { domain: 'github.com', name: 'GitHub', source: 'web', path: 'topics' },
  { domain: 'www.brookings.edu', name: 'Brookings', source: 'web', path: 'articles' },
  { domain: 'fred.stlouisfed.org', name: 'FRED', source: 'svc/svc-fred', path: 'series' },
  { domain: 'www.who.int', name: 'World Health Organization', source: 'web', path: 'publications' },
  { domain: 'hbr.org', name: 'Harvard Business Review', source: 'web', path: '2025' },
];

const SOURCE_COUNTS: Record<ResearchMode, number> = { fast: 6, standard: 10, heavy: 14, max: 20 };
const ANGLES = [
  'overview',
  'market analysis',
  'recent developments',
  'data and statistics',
  'risks and outlook',
  'case study',
  'policy context',
  'technical background',
];

/** `www.` stripped, lower case: how domains are compared. */
export function normaliseDomain(domain: string): string {
  const trimmed =
    domain
      .trim()
      .toLowerCase()
      .replace(/^https?:\/\//, '')
      .split('/')[0] ?? '';
  return trimmed.replace(/^www\./, '');
}

/** True when `host` is `domain` or one of its subdomains. */
export function domainMatches(host: string, domain: string): boolean {
  const a = normaliseDomain(host);
  const b = normaliseDomain(domain);
  return b !== '' && (a === b || a.endsWith(`.${b}`));
}

function sourceFor(topic: Topic, publisher: Publisher, seed: number, index: number): GeneratedSource {
  const random = seededRandom(seed, 100 + index);
  const angle = random.pick(ANGLES);
  const month = String(random.int(1, 12)).padStart(2, '0');
  const day = String(random.int(1, 28)).padStart(2, '0');
  return {
    title: `${topic.keywords.slice(0, 3).join(' ')}: ${angle} (${publisher.name})`,
    url: `https://${publisher.domain}/${publisher.path}/${topic.slug}-${angle.replace(/\s+/g, '-')}-${(seed + index) % 9973}`,
    domain: publisher.domain,
    source: publisher.source,
    snippet: `${publisher.name} on ${topic.keywords.slice(0, 2).join(' and ')}: ${angle}, with figures and context relevant to the question.`,
    publication_date: `${random.int(2019, 2025)}-${month}-${day}`,
    relevance_score: 0.9,
  };
}

/** The sources offered at the `source_review` checkpoint. */
export function candidateSources(task: TaskRecord): GeneratedSource[] {
  const topic = topicOf(task.query);
  const random = seededRandom(task.seed, 1);
  const pool = [...PUBLISHERS];
  const picked: GeneratedSource[] = [];
  for (let index = 0; index < 8 && pool.length > 0; index++) {
    const [publisher] = pool.splice(random.int(0, pool.length - 1), 1);
    if (publisher) picked.push(sourceFor(topic, publisher, task.seed, index));
  }
  return picked;
}

/**
 * The sources of the finished report: the candidates, then caller URLs and domains the reviewer asked
 * for, then more publishers, never one on a domain the reviewer excluded. `fraction` < 1 gives the
 * share found by a task that stopped early.
 */
export function taskSources(task: TaskRecord, fraction = 1): GeneratedSource[] {
  const topic = topicOf(task.query);
  const review = task.history.find((entry) => entry.type === 'source_review')?.response;
  const excluded = review && 'excluded_domains' in review ? review.excluded_domains : [];
  const included = review && 'included_domains' in review ? review.included_domains : [];
  const allowed = (domain: string): boolean => !excluded.some((blocked) => domainMatches(domain, blocked));
  const sources: GeneratedSource[] = [];
  const push = (source: GeneratedSource): void => {
    if (allowed(source.domain) && !sources.some((known) => known.url === source.url)) sources.push(source);
  };
  task.config.urls.forEach((url, index) =>
    push({
      ...sourceFor(topic, { domain: safeHost(url), name: safeHost(url), source: 'web', path: '' }, task.seed, 50 + index),
      url,
      title: `Provided reference: ${url}`,
    }),
  );
  included.forEach((domain, index) =>
    push(sourceFor(topic, { domain: normaliseDomain(domain), name: normaliseDomain(domain), source: 'web', path: 'research' }, task.seed, 60 + index)),
  );
  candidateSources(task).forEach(push);
  PUBLISHERS.forEach((publisher, index) => push(sourceFor(topic, publisher, task.seed, 20 + index)));
  const wanted = Math.max(SOURCE_COUNTS[task.config.mode], task.config.urls.length + included.length);
  // Ranked as listed: the most relevant first.
  const found = sources.slice(0, wanted).map((source, index) => ({ ...source, relevance_score: Math.round((0.97 - index * 0.025) * 1000) / 1000 }));
  return fraction >= 1 ? found : found.slice(0, Math.floor(found.length * Math.max(0, fraction)));
}

function safeHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return 'example.org';
  }
}
