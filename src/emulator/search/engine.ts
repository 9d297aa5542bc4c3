import type { SearchResult, SearchType } from '../../api/schemas';
import { findDataset } from '../catalogue';
import type { Account, Random } from '../types';
import { CORPUS } from './corpus';
import type { CorpusDocument } from './corpus-types';
import { planAllows, selectorMatches, type SourceSelector } from './sources';
import { roundUsd } from '../accounts';
import { queryTerms, tokenize, truncate } from './text';

/** CPM of web results (USD per thousand tokens); datasets use their catalogue `pricing.cpm`. */
export const WEB_CPM = 1;

/** A search, normalised from a Search or Answer request. */
export interface SearchPlan {
  query: string;
  maxResults: number;
  searchType: SearchType;
  relevanceThreshold: number;
  included: readonly SourceSelector[];
  excluded: readonly SourceSelector[];
  biases: Readonly<Record<string, number>>;
  startDate?: string;
  endDate?: string;
  /** Web only, no semantic reranking, hence no `relevance_score`. */
  fastMode: boolean;
  includeAbstracts: boolean;
  /** Per-result character budget (`response_length`). */
  maxCharacters: number;
  /** Highest CPM a source may have (`max_price`). */
  maxCpm?: number;
  /** A fault: one contributing source fails and its results are lost. */
  failOneSource: boolean;
}

/** Ranked, priced results; `failedSources` is non-empty when a source "failed" (a 206). */
export interface SearchOutcome {
  results: SearchResult[];
  failedSources: string[];
}

/** The CPM a document's source is priced at. */
export function cpmOf(document: CorpusDocument): number {
  return document.source === 'web' ? WEB_CPM : (findDataset(document.source)?.pricing?.cpm ?? WEB_CPM);
}

/** Term-overlap relevance in [0, 1): title hits count fully, body hits 0.7; no overlap is 0. */
export function relevance(terms: readonly string[], document: CorpusDocument): number {
  if (terms.length === 0) return 0;
  const title = new Set(tokenize(document.title));
  const body = new Set(tokenize([document.content, document.description ?? '', ...(document.keywords ?? []), ...(document.authors ?? [])].join(' ')));
  const coverage = terms.reduce((sum, term) => sum + (title.has(term) ? 1 : body.has(term) ? 0.7 : 0), 0) / terms.length;
  return coverage === 0 ? 0 : Math.round((0.3 + 0.69 * coverage) * 10_000) / 10_000;
}

function typeAllows(plan: SearchPlan, document: CorpusDocument): boolean {
  if (plan.fastMode) return document.source === 'web';
  switch (plan.searchType) {
    case 'web':
      return document.source === 'web';
    case 'proprietary':
      return document.source !== 'web' && !document.news;
    case 'news':
      return document.news === true;
    case 'all':
      return true;
  }
}

function dateAllows(plan: SearchPlan, document: CorpusDocument): boolean {
  if (!plan.startDate && !plan.endDate) return true;
  const date = document.publication_date;
  if (!date) return false;
  return (!plan.startDate || date >= plan.startDate) && (!plan.endDate || date <= plan.endDate);
}

function biasOf(plan: SearchPlan, document: CorpusDocument): number {
  const url = new URL(document.url);
  const host = url.hostname.replace(/^www\./, '');
  const target = `${host}${url.pathname}`;
  return Object.entries(plan.biases).reduce((sum, [key, bias]) => {
    const bare = key
      .replace(/^https?:\/\//, '')
      .replace(/^www\./, '')
      .replace(/\/+$/, '');
    return host === bare || host.endsWith(`.${bare}`) || target.startsWith(bare) ? sum + bias : sum;
  }, 0);
}

/** Runs a search over the corpus: filter, score, threshold, bias, rank, cut, price. */
export function runSearch(plan: SearchPlan, account: Account, random: Random): SearchOutcome {
  const terms = queryTerms(plan.query);
  let candidates = CORPUS.filter((document) => typeAllows(plan, document) && dateAllows(plan, document) && planAllows(document, account))
    .filter((document) => plan.included.length === 0 || plan.included.some((selector) => selectorMatches(selector, document)))
    .filter((document) => !plan.excluded.some((selector) => selectorMatches(selector, document)))
    .filter((document) => plan.maxCpm === undefined || cpmOf(document) <= plan.maxCpm)
    .map((document) => ({ document, score: relevance(terms, document) }))
    .filter(({ score }) => score > 0 && (plan.fastMode || score >= plan.relevanceThreshold));
  const failedSources: string[] = [];
  if (plan.failOneSource) {
    const sources = [...new Set(candidates.map(({ document }) => document.source))].sort();
    const failed = sources.length > 0 ? sources[random.int(0, sources.length - 1)] : plan.fastMode ? 'web' : 'svc/svc-arxiv';
    if (failed) failedSources.push(failed);
    candidates = candidates.filter(({ document }) => document.source !== failed);
  }
  const ranked = candidates
    .map((candidate) => ({ ...candidate, rank: candidate.score * (1 + 0.1 * biasOf(plan, candidate.document)) }))
    .sort((a, b) => b.rank - a.rank || a.document.id.localeCompare(b.document.id))
    .slice(0, plan.maxResults);
  return { results: ranked.map(({ document, score }) => toResult(plan, document, score)), failedSources };
}

function toResult(plan: SearchPlan, document: CorpusDocument, score: number): SearchResult {
  const fullText = plan.includeAbstracts && document.fullText ? `${document.content}\n\n${document.fullText}` : document.content;
  const text = truncate(fullText, plan.maxCharacters);
  // A structured dataset returns the rows that fit the length budget (its text when none does); length
  // and price count their JSON text.
  const rows = fittingRows(document.records ?? [], plan.maxCharacters);
  const content = rows.length > 0 ? rows : text;
  const length = typeof content === 'string' ? content.length : JSON.stringify(content).length;
  const tokens = Math.ceil(length / 4);
  return {
    id: document.id,
    title: document.title,
    url: document.url,
    content,
    ...(document.description ? { description: document.description } : {}),
    source: document.source,
    price: roundUsd((cpmOf(document) * tokens) / 1000),
    length,
    ...(plan.fastMode ? {} : { relevance_score: score }),
    data_type: rows.length > 0 ? 'structured' : 'unstructured',
    source_type: document.source_type,
    ...(document.publication_date ? { publication_date: document.publication_date } : {}),
    ...(document.doi ? { doi: document.doi } : {}),
    ...(document.authors ? { authors: [...document.authors] } : {}),
  };
}

function fittingRows(records: NonNullable<CorpusDocument['records']>, maxCharacters: number): Record<string, string | number>[] {
  const rows: Record<string, string | number>[] = [];
  for (const record of records) {
    const next = [...rows, { ...record }];
    if (JSON.stringify(next).length > maxCharacters) break;
    rows.push({ ...record });
  }
  return rows;
}

/** The kind a result counts under in `results_by_source`: `web`, `news` or `proprietary`. */
export function sourceKind(result: Pick<SearchResult, 'source'>): 'web' | 'news' | 'proprietary' {
  if (result.source === 'web') return 'web';
  return result.source === 'newswire/news' ? 'news' : 'proprietary';
}
