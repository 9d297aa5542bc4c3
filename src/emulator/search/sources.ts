import { findDataset } from '../catalogue';
import { EmulatorHttpError, type Account } from '../types';
import type { CorpusDocument } from './corpus-types';
import { findPreset } from './presets';

/** One entry of `included_sources` / `excluded_sources`, understood. */
export type SourceSelector =
  | { kind: 'web' }
  | { kind: 'dataset'; id: string }
  | { kind: 'preset'; datasets: ReadonlySet<string>; domains: readonly string[] }
  | { kind: 'domain'; host: string }
  | { kind: 'url'; prefix: string };

const bareHost = (host: string): string => host.toLowerCase().replace(/^www\./, '');

const invalid = (field: string, index: number, rule: string): EmulatorHttpError =>
  EmulatorHttpError.of(400, `Invalid request parameters: ${field}[${index}]: ${rule}`);

/** Classifies a source entry; an unknown dataset, collection or word is a 400 naming the entry. */
export function parseSelector(entry: string, field: string, index: number): SourceSelector {
  const value = entry.trim();
  if (value === 'web') return { kind: 'web' };
  if (findDataset(value)) return { kind: 'dataset', id: value };
  const preset = findPreset(value);
  if (preset) return { kind: 'preset', datasets: new Set(preset.datasets), domains: preset.domains };
  if (value.startsWith('collection:')) {
    throw invalid(field, index, `collection "${value.slice('collection:'.length)}" does not exist in this organisation`);
  }
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw invalid(field, index, `"${value}" is not a domain, URL, dataset id, preset, web or collection:<NAME>`);
  }
  if (!url.hostname.includes('.')) {
    const rule = value.includes('/')
      ? `unknown dataset "${value}" (see GET /v1/datasources)`
      : `"${value}" is not a domain, URL, dataset id, preset, web or collection:<NAME>`;
    throw invalid(field, index, rule);
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (path === '' && url.search === '') return { kind: 'domain', host: bareHost(url.hostname) };
  return { kind: 'url', prefix: `${bareHost(url.hostname)}${path}` };
}

function hostMatches(documentUrl: string, host: string): boolean {
  const documentHost = bareHost(new URL(documentUrl).hostname);
  return documentHost === host || documentHost.endsWith(`.${host}`);
}

/** Whether a document is covered by a selector; domains and URLs filter web results only. */
export function selectorMatches(selector: SourceSelector, document: CorpusDocument): boolean {
  const isWeb = document.source === 'web';
  switch (selector.kind) {
    case 'web':
      return isWeb;
    case 'dataset':
      return document.source === selector.id;
    case 'preset':
      return isWeb ? selector.domains.some((host) => hostMatches(document.url, host)) : selector.datasets.has(document.source);
    case 'domain':
      return isWeb && hostMatches(document.url, selector.host);
    case 'url': {
      if (!isWeb) return false;
      const url = new URL(document.url);
      return `${bareHost(url.hostname)}${url.pathname}`.startsWith(selector.prefix);
    }
  }
}

/**
 * Plan gating: a dataset named explicitly without the subscription it needs is refused (403), so the
 * caller learns why; datasets reached through presets or routing are silently left out instead.
 */
export function checkExplicitDatasets(selectors: readonly SourceSelector[], account: Account): void {
  for (const selector of selectors) {
    if (selector.kind !== 'dataset') continue;
    if (findDataset(selector.id)?.requires_subscription && !account.subscription) {
      throw EmulatorHttpError.of(403, `Dataset ${selector.id} requires a subscription`);
    }
  }
}

/** The included and excluded sources of a Search or Answer request, parsed and checked against the plan. */
export function selectSources(
  request: { included_sources?: readonly string[] | undefined; excluded_sources?: readonly string[] | undefined },
  account: Account,
): { included: SourceSelector[]; excluded: SourceSelector[] } {
  const included = (request.included_sources ?? []).map((entry, index) => parseSelector(entry, 'included_sources', index));
  const excluded = (request.excluded_sources ?? []).map((entry, index) => parseSelector(entry, 'excluded_sources', index));
  checkExplicitDatasets(included, account);
  return { included, excluded };
}

/** Whether the account's plan lets a document be returned. */
export function planAllows(document: CorpusDocument, account: Account): boolean {
  if (document.source === 'web' || account.subscription) return true;
  return findDataset(document.source)?.requires_subscription === false;
}
