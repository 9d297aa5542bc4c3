import { PAPER_DOCUMENTS } from './corpus-papers';
import { RECORD_DOCUMENTS } from './corpus-records';
import type { CorpusDocument } from './corpus-types';
import { WEB_DOCUMENTS } from './corpus-web';

export type { CorpusDocument } from './corpus-types';

/** The emulator's built-in search corpus: web pages and records of several catalogue datasets, fixed and deterministic. */
export const CORPUS: readonly CorpusDocument[] = [...WEB_DOCUMENTS, ...PAPER_DOCUMENTS, ...RECORD_DOCUMENTS];

/** A corpus document by its URL (Contents returns these pages verbatim). */
export function findByUrl(url: string): CorpusDocument | undefined {
  const normalised = normaliseUrl(url);
  return CORPUS.find((document) => normaliseUrl(document.url) === normalised);
}

/** Lowercase host without `www.`, no fragment and no trailing slash: how URLs are compared. */
export function normaliseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname.toLowerCase().replace(/^www\./, '');
    return `${host}${parsed.pathname.replace(/\/+$/, '')}${parsed.search}`;
  } catch {
    return url.trim().toLowerCase();
  }
}
