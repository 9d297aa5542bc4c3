import { DATASOURCE_CATEGORIES, type DatasourceCategory } from '../api/schemas';
import type { CatalogueEntry } from './catalogue-data/build';
import { MARKETS_AND_COMPANY } from './catalogue-data/markets-company';
import { PUBLIC_DATA } from './catalogue-data/public-data';
import { RESEARCH_AND_HEALTH } from './catalogue-data/research-health';

export type { CatalogueEntry } from './catalogue-data/build';

/**
 * The 50 datasets of spec 2.9. The spec lists groups that are not category ids; they are filed as:
 * Cybersecurity -> `research` (security knowledge bases), News -> `company` (press releases),
 * Prediction markets -> `predictions`. No dataset is in `transportation` (its count is 0).
 */
export const DATASETS: readonly CatalogueEntry[] = [...RESEARCH_AND_HEALTH, ...MARKETS_AND_COMPANY, ...PUBLIC_DATA];

const CATEGORY_TEXT: Record<(typeof DATASOURCE_CATEGORIES)[number], { name: string; description: string }> = {
  research: { name: 'Research', description: 'Academic preprints, papers, licensed publisher sets and security research references.' },
  healthcare: { name: 'Healthcare', description: 'Clinical trials, drugs, targets, adverse events and global health statistics.' },
  markets: { name: 'Markets', description: 'Prices of stocks, funds, ETFs, currencies, commodities and crypto assets.' },
  company: { name: 'Company', description: 'Company fundamentals, filings, insider transactions and press releases.' },
  economic: { name: 'Economic', description: 'Macroeconomic, labour and public spending statistics.' },
  predictions: { name: 'Prediction markets', description: 'Event contract prices from prediction markets.' },
  transportation: { name: 'Transportation', description: 'Transport and mobility sources (reached through web search in this catalogue).' },
  legal: { name: 'Legal', description: 'Legislation, regulation and case law.' },
  politics: { name: 'Politics', description: 'Parliamentary debates, bills and votes.' },
  patents: { name: 'Patents', description: 'Patent grants and applications.' },
};

/** The 10 categories with `dataset_count` computed from `DATASETS`, so the counts always add up. */
export const CATEGORIES: readonly DatasourceCategory[] = DATASOURCE_CATEGORIES.map((id) => ({
  id,
  ...CATEGORY_TEXT[id],
  dataset_count: DATASETS.filter((dataset) => dataset.category === id).length,
}));

const BY_ID = new Map(DATASETS.map((dataset) => [dataset.id, dataset]));

/** The catalogue entry of a dataset id (case-sensitive, as the service's ids are). */
export function findDataset(id: string): CatalogueEntry | undefined {
  return BY_ID.get(id);
}
