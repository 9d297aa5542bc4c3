import type { ResearchClient } from '../../src/api/client';
import { DATASOURCE_CATEGORIES } from '../../src/api/schemas';
import type { RunningEmulator } from '../../src/emulator/server';
import { rawCall, useEmulator } from './helpers';

/** Every dataset id the spec lists in section 2.9. */
const SPEC_IDS = [
  'svc/svc-arxiv',
  'svc/svc-biorxiv',
  'svc/svc-chemrxiv',
  'svc/svc-medrxiv',
  'svc/svc-pubmed',
  'pub/pub-finance-books',
  'pub/pub-finance-papers',
  'pub/pub-hls',
  'svc/svc-chembl',
  'svc/svc-clinical-trials',
  'svc/svc-drug-labels',
  'svc/svc-nih-reporter',
  'svc/svc-open-targets',
  'svc/svc-openfda-drug-events',
  'svc/svc-pubchem',
  'svc/svc-who-gho',
  'svc/svc-patents',
  'svc/svc-patents-epo',
  'svc/svc-commodities',
  'svc/svc-crypto',
  'svc/svc-etfs',
  'svc/svc-forex',
  'svc/svc-funds',
  'svc/svc-market-movers-US',
  'svc/svc-stocks',
  'svc/svc-balance-sheet-US',
  'svc/svc-cash-flow-US',
  'svc/svc-dividends-US',
  'svc/svc-earnings-US',
  'svc/svc-income-statement-US',
  'svc/svc-insider-transactions-US',
  'svc/svc-sec-filings',
  'svc/svc-statistics-US',
  'svc/svc-bls',
  'svc/svc-destatis-labor',
  'svc/svc-fred',
  'svc/svc-imf',
  'svc/svc-usaspending',
  'svc/svc-worldbank-indicators',
  'svc/svc-kalshi',
  'svc/svc-polymarket',
  'svc/svc-mica-eu',
  'svc/svc-uk-case-law',
  'svc/svc-uk-legislation',
  'svc/svc-uk-parliament',
  'svc/svc-cisa-kev',
  'svc/svc-epss',
  'svc/svc-mitre-attack',
  'svc/svc-nvd-cve',
  'newswire/news',
];

describe('datasources', () => {
  let emulator: RunningEmulator;
  let client: ResearchClient;
  useEmulator({}, (started) => ({ emulator, client } = started));

  it('lists exactly the 50 datasets of the spec, each with every catalogue field', async () => {
    const datasources = await client.listDatasources();
    expect(datasources.map((datasource) => datasource.id).sort()).toEqual([...SPEC_IDS].sort());
    for (const datasource of datasources) {
      expect(datasource).toMatchObject({
        name: expect.any(String),
        description: expect.any(String),
        type: expect.stringMatching(/^(structured|unstructured)$/),
        topics: expect.any(Array),
        example_queries: expect.any(Array),
        pricing: { cpm: expect.any(Number) },
        access_modes: expect.arrayContaining(['search', 'deepresearch']),
      });
      expect(datasource.modality?.every((modality) => ['text', 'images', 'tabular'].includes(modality))).toBe(true);
      expect(datasource.size === undefined || Number.isInteger(datasource.size)).toBe(true);
      expect(DATASOURCE_CATEGORIES).toContain(datasource.category);
      expect(['real-time', 'daily', 'weekly', 'monthly', 'quarterly']).toContain(datasource.update_frequency);
    }
  });

  it('lists the 10 categories with counts that match the datasets and add up to 50', async () => {
    const [categories, datasources] = await Promise.all([client.listDatasourceCategories(), client.listDatasources()]);
    expect(categories.map((category) => category.id)).toEqual([...DATASOURCE_CATEGORIES]);
    for (const category of categories) {
      expect(category.dataset_count).toBe(datasources.filter((datasource) => datasource.category === category.id).length);
    }
    expect(categories.reduce((sum, category) => sum + category.dataset_count, 0)).toBe(50);
  });

  it('files the spec groups without a category id sensibly', async () => {
    const byId = new Map((await client.listDatasources()).map((datasource) => [datasource.id, datasource.category]));
    expect(byId.get('svc/svc-nvd-cve')).toBe('research');
    expect(byId.get('newswire/news')).toBe('company');
    expect(byId.get('svc/svc-kalshi')).toBe('predictions');
  });

  it('filters by category', async () => {
    const legal = await client.listDatasources({ category: 'legal' });
    expect(legal.map((datasource) => datasource.id).sort()).toEqual(['svc/svc-mica-eu', 'svc/svc-uk-case-law', 'svc/svc-uk-legislation']);
  });

  it('answers 400 naming the rule for an unknown category', async () => {
    const answer = await rawCall(emulator, 'GET', '/datasources?category=astrology');
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ success: false, error: expect.stringContaining('query.category: Invalid option') });
  });
});
