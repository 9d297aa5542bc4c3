/** How a corpus document presents itself in results (`source_type`). */
export type CorpusSourceType = 'website' | 'paper' | 'news' | 'filing' | 'dataset' | 'patent' | 'clinical_trial' | 'legislation';

/** One searchable document of the emulator's built-in corpus. */
export interface CorpusDocument {
  /** A URL for web documents, `<dataset id>:<local id>` for dataset records. */
  readonly id: string;
  /** `web` or a catalogue dataset id. */
  readonly source: string;
  readonly title: string;
  readonly url: string;
  readonly content: string;
  readonly description?: string;
  readonly publication_date?: string;
  readonly authors?: readonly string[];
  readonly doi?: string;
  readonly source_type: CorpusSourceType;
  /** A news article (what `search_type: news` returns). */
  readonly news?: boolean;
  /** Extra terms that match queries without appearing in the text. */
  readonly keywords?: readonly string[];
  /** Longer text returned with `include_abstracts` (biomedical papers). */
  readonly fullText?: string;
  /**
   * Rows of a structured dataset (market data): such a result's `content` is this array and its
   * `data_type` is `structured`, as both official clients allow.
   */
  readonly records?: readonly Readonly<Record<string, string | number>>[];
}

/** Builds a web document whose id is its URL. */
export function webDocument(document: Omit<CorpusDocument, 'id' | 'source' | 'source_type'> & { source_type?: CorpusSourceType }): CorpusDocument {
  return { source_type: document.news ? 'news' : 'website', ...document, id: document.url, source: 'web' };
}

/** Builds a dataset record with a dataset-scoped id. */
export function datasetRecord(source: string, localId: string, document: Omit<CorpusDocument, 'id' | 'source'>): CorpusDocument {
  return { ...document, id: `${source}:${localId}`, source };
}
