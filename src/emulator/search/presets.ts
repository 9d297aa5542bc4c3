import type { SEARCH_PRESETS } from '../../api/schemas';

/** What a search preset stands for: catalogue datasets and web domains. */
export interface PresetSources {
  readonly datasets: readonly string[];
  readonly domains: readonly string[];
}

const svc = (...names: string[]): string[] => names.map((name) => `svc/svc-${name}`);
const MARKETS = svc('commodities', 'crypto', 'etfs', 'forex', 'funds', 'market-movers-US', 'stocks');
const COMPANY = svc(
  'balance-sheet-US',
  'cash-flow-US',
  'dividends-US',
  'earnings-US',
  'income-statement-US',
  'insider-transactions-US',
  'sec-filings',
  'statistics-US',
);
const HEALTHCARE = svc('chembl', 'clinical-trials', 'drug-labels', 'nih-reporter', 'open-targets', 'openfda-drug-events', 'pubchem', 'who-gho');
const HEALTH_DOMAINS = ['who.int', 'nih.gov'];

/** Each preset of spec 2.1 mapped to dataset groups (and the corpus's web domains on the same subject). */
export const PRESETS: Readonly<Record<(typeof SEARCH_PRESETS)[number], PresetSources>> = {
  academic: { datasets: [...svc('arxiv', 'biorxiv', 'chemrxiv', 'medrxiv', 'pubmed'), 'pub/pub-finance-papers', 'pub/pub-hls'], domains: ['nature.com'] },
  finance: { datasets: [...MARKETS, ...COMPANY, 'pub/pub-finance-books', 'pub/pub-finance-papers'], domains: ['reuters.com', 'ecb.europa.eu'] },
  patent: { datasets: svc('patents', 'patents-epo'), domains: [] },
  transportation: { datasets: [], domains: ['transportation.gov'] },
  politics: { datasets: svc('uk-parliament'), domains: ['gov.uk'] },
  legal: { datasets: svc('mica-eu', 'uk-case-law', 'uk-legislation'), domains: ['legislation.gov.uk'] },
  health: { datasets: [...HEALTHCARE, ...svc('pubmed', 'medrxiv')], domains: HEALTH_DOMAINS },
  genomics: { datasets: svc('open-targets', 'biorxiv', 'pubmed'), domains: [] },
  chemistry: { datasets: svc('chembl', 'pubchem', 'chemrxiv'), domains: [] },
  physics: { datasets: svc('arxiv'), domains: [] },
  pulse: { datasets: ['newswire/news', ...svc('kalshi', 'polymarket')], domains: ['reuters.com', 'bbc.co.uk', 'techcrunch.com'] },
  cybersecurity: { datasets: svc('cisa-kev', 'epss', 'mitre-attack', 'nvd-cve'), domains: [] },
  environment: { datasets: svc('worldbank-indicators'), domains: ['epa.gov', 'iea.org'] },
  automotive: { datasets: [], domains: ['iea.org', 'transportation.gov'] },
  compliance: { datasets: svc('sec-filings', 'mica-eu', 'uk-legislation', 'cisa-kev'), domains: ['gov.uk'] },
  medical: { datasets: [...HEALTHCARE, ...svc('pubmed', 'medrxiv'), 'pub/pub-hls'], domains: HEALTH_DOMAINS },
};

const BY_NAME: ReadonlyMap<string, PresetSources> = new Map(Object.entries(PRESETS));

/** The preset named `name`, if it is one. */
export function findPreset(name: string): PresetSources | undefined {
  return BY_NAME.get(name);
}
