import type { ResearchClient } from '../../src/api/client';
import { ResearchApiError } from '../../src/api/errors';
import { contentText } from '../../src/api/schemas';
import { findDataset } from '../../src/emulator/catalogue';
import type { RunningEmulator } from '../../src/emulator/server';
import { clientWithKey, KEYS, rawCall, rejectionOf, TEST_ACCOUNTS, useEmulator } from './helpers';

describe('POST /v1/search', () => {
  let emulator: RunningEmulator;
  let client: ResearchClient;
  useEmulator({ accounts: TEST_ACCOUNTS }, (started) => ({ emulator, client } = started));

  const search = (body: Record<string, unknown>, apiKey: string = KEYS.full) => rawCall(emulator, 'POST', '/search', { body, apiKey });

  it('returns ranked results with prices, counts and a tx_ id, and charges their total', async () => {
    const response = await client.search({ query: 'Acme Robotics revenue' });
    expect(response.partial).toBe(false);
    expect(response).toMatchObject({ success: true, error: null, query: 'Acme Robotics revenue', tx_id: expect.stringMatching(/^tx_[0-9a-f]{24}$/) });
    expect(response.results.length).toBe(5);
    const scores = response.results.map((result) => result.relevance_score ?? 0);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const total = response.results.reduce((sum, result) => sum + result.price, 0);
    expect(response.total_deduction_dollars).toBeCloseTo(total, 6);
    expect(response.total_characters).toBe(response.results.reduce((sum, result) => sum + result.length, 0));
    const counted = Object.values(response.results_by_source).reduce((sum, count) => sum + count, 0);
    expect(counted).toBe(response.results.length);
    expect(emulator.accounts.find(KEYS.full)?.creditsUsd).toBeCloseTo(50 - total, 6);
  });

  it('prices a result by its source CPM per thousand tokens of content', async () => {
    const response = await client.search({ query: 'retrieval augmented generation survey', included_sources: ['svc/svc-arxiv'] });
    const [result] = response.results;
    const cpm = findDataset('svc/svc-arxiv')?.pricing?.cpm ?? 0;
    expect(result?.price).toBeCloseTo((cpm * Math.ceil((result?.length ?? 0) / 4)) / 1000, 6);
    expect(result).toMatchObject({
      source: 'svc/svc-arxiv',
      source_type: 'paper',
      doi: expect.any(String),
      authors: expect.any(Array),
      data_type: 'unstructured',
    });
  });

  it('rejects unknown properties with 400 naming the key', async () => {
    const answer = await search({ query: 'robots', colour: 'blue' });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ success: false, error: expect.stringContaining('Unrecognized key: "colour"') });
  });

  it.each([
    [{ query: 'robots', relevance_threshold: 2 }, 'relevance_threshold'],
    [{ query: '' }, 'query: is required'],
    [{ query: 'robots', max_price: 0 }, 'max_price'],
    [{ query: 'robots', source_biases: { 'acme-robotics.com': 9 } }, 'source_biases.acme-robotics.com'],
    [{ query: 'robots', start_date: '2025-02-30' }, 'start_date: must be YYYY-MM-DD or an ISO 8601 date-time'],
    [{ query: 'robots', start_date: '2025-02-01', end_date: '2025-01-01' }, 'end_date: must not be before start_date'],
    [{ query: 'robots', excluded_sources: ['academic'] }, 'excluded_sources[0]: presets such as "academic" are not supported'],
    [{ query: 'robots', included_sources: ['svc/svc-nothing'] }, 'included_sources[0]: unknown dataset "svc/svc-nothing"'],
    [{ query: 'robots', included_sources: ['collection:Mine'] }, 'included_sources[0]: collection "Mine" does not exist'],
    [{ query: 'robots', included_sources: ['banana'] }, 'included_sources[0]: "banana" is not a domain'],
  ])('answers 400 for %j with the field and rule', async (body, message) => {
    const answer = await search(body);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ success: false, error: expect.stringContaining(message) });
  });

  it('allows more than 20 results only with the increased_max_results permission', async () => {
    const refused = await search({ query: 'robots', max_num_results: 21 }, KEYS.free);
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      success: false,
      error: expect.stringContaining('max_num_results: at most 20 without the increased_max_results permission'),
    });
    const allowed = await search({ query: 'robots', max_num_results: 50 }, KEYS.full);
    expect(allowed.status).toBe(200);
  });

  it('caps results at max_num_results', async () => {
    const response = await client.search({ query: 'Acme Robotics Globex', max_num_results: 2 });
    expect(response.results).toHaveLength(2);
  });

  it('drops results below relevance_threshold', async () => {
    const loose = await client.search({ query: 'Acme Robotics warehouse robot revenue', relevance_threshold: 0.3, max_num_results: 20 });
    const strict = await client.search({ query: 'Acme Robotics warehouse robot revenue', relevance_threshold: 0.8, max_num_results: 20 });
    expect(strict.results.length).toBeLessThan(loose.results.length);
    expect(strict.results.every((result) => (result.relevance_score ?? 0) >= 0.8)).toBe(true);
  });

  it('filters by included domains, URL prefixes, datasets, presets and web', async () => {
    const byDomain = await client.search({ query: 'Acme Robotics', included_sources: ['acme-robotics.com'] });
    expect(byDomain.results.map((result) => new URL(result.url).hostname)).toEqual(byDomain.results.map(() => 'www.acme-robotics.com'));
    const byUrl = await client.search({ query: 'Acme Robotics', included_sources: ['https://www.acme-robotics.com/blog'] });
    expect(byUrl.results.map((result) => result.url)).toEqual(['https://www.acme-robotics.com/blog/picker-4-launch']);
    const byDataset = await client.search({ query: 'Acme Robotics', included_sources: ['svc/svc-sec-filings'] });
    expect(new Set(byDataset.results.map((result) => result.source))).toEqual(new Set(['svc/svc-sec-filings']));
    const byPreset = await client.search({ query: 'sickle cell gene editing', included_sources: ['medical'] });
    expect(byPreset.results.length).toBeGreaterThan(0);
    expect(byPreset.results.every((result) => result.source !== 'web' || result.url.includes('nih.gov') || result.url.includes('who.int'))).toBe(true);
    const webOnly = await client.search({ query: 'Acme Robotics', included_sources: ['web'] });
    expect(webOnly.results.every((result) => result.source === 'web')).toBe(true);
  });

  it('leaves out excluded sources', async () => {
    const response = await client.search({ query: 'Acme Robotics', excluded_sources: ['web', 'svc/svc-stocks'], max_num_results: 20 });
    expect(response.results.length).toBeGreaterThan(0);
    expect(response.results.some((result) => result.source === 'web' || result.source === 'svc/svc-stocks')).toBe(false);
  });

  it('reorders with source_biases without filtering', async () => {
    const plain = await client.search({ query: 'Acme Robotics', max_num_results: 20 });
    const biased = await client.search({ query: 'Acme Robotics', max_num_results: 20, source_biases: { 'globex.com': 5, 'acme-robotics.com': -5 } });
    expect(biased.results.map((result) => result.id).sort()).toEqual(plain.results.map((result) => result.id).sort());
    const position = (results: typeof plain.results, url: string) => results.findIndex((result) => result.url === url);
    expect(position(biased.results, 'https://www.globex.com/investors')).toBeLessThan(position(plain.results, 'https://www.globex.com/investors'));
    expect(position(biased.results, 'https://www.acme-robotics.com/about')).toBeGreaterThan(position(plain.results, 'https://www.acme-robotics.com/about'));
  });

  it('keeps only results published within start_date and end_date', async () => {
    const response = await client.search({ query: 'Acme Robotics Globex', start_date: '2025-01-01', end_date: '2025-02-28', max_num_results: 20 });
    expect(response.results.length).toBeGreaterThan(0);
    for (const result of response.results) {
      expect(result.publication_date! >= '2025-01-01' && result.publication_date! <= '2025-02-28').toBe(true);
    }
  });

  it.each([
    ['web', (source: string) => source === 'web'],
    ['proprietary', (source: string) => source !== 'web' && source !== 'newswire/news'],
    ['news', (source: string) => source === 'web' || source === 'newswire/news'],
  ] as const)('restricts search_type %s to its sources', async (searchType, allowed) => {
    const response = await client.search({ query: 'Acme Robotics Globex robotics', search_type: searchType, max_num_results: 20, relevance_threshold: 0.3 });
    expect(response.results.length).toBeGreaterThan(0);
    expect(response.results.every((result) => allowed(result.source))).toBe(true);
  });

  it('omits relevance_score and searches the web only in fast_mode', async () => {
    const response = await client.search({ query: 'Acme Robotics', fast_mode: true, max_num_results: 20 });
    expect(response.results.length).toBeGreaterThan(0);
    expect(response.results.every((result) => result.relevance_score === undefined && result.source === 'web')).toBe(true);
  });

  it('leaves out sources whose CPM exceeds max_price', async () => {
    const response = await client.search({ query: 'Acme Robotics revenue filings', max_price: 1, max_num_results: 20, relevance_threshold: 0.3 });
    expect(response.results.length).toBeGreaterThan(0);
    expect(response.results.some((result) => result.source === 'svc/svc-sec-filings')).toBe(false);
  });

  it('truncates content to response_length', async () => {
    const short = await client.search({ query: 'Acme Robotics', response_length: 120, max_num_results: 20 });
    expect(short.results.every((result) => result.length <= 120 && contentText(result.content).length === result.length)).toBe(true);
    const named = await client.search({ query: 'Acme Robotics', response_length: 'short' });
    expect(named.results.every((result) => result.length <= 300)).toBe(true);
  });

  it('adds the abstract corpus text for biomedical papers with include_abstracts', async () => {
    const plain = await client.search({ query: 'semaglutide cardiovascular outcomes', included_sources: ['svc/svc-pubmed'] });
    const expanded = await client.search({ query: 'semaglutide cardiovascular outcomes', included_sources: ['svc/svc-pubmed'], include_abstracts: true });
    expect(expanded.results[0]!.length).toBeGreaterThan(plain.results[0]!.length);
  });

  it('answers 206 with the same shape and charges nothing when nothing matches', async () => {
    const response = await client.search({ query: 'zyxwvut qwertyuiop' });
    expect(response).toMatchObject({ partial: true, success: true, results: [], total_deduction_dollars: 0, results_by_source: {} });
    expect(emulator.accounts.find(KEYS.full)?.creditsUsd).toBe(50);
  });

  describe('plan gating', () => {
    it('silently leaves subscription datasets out for a key without a subscription', async () => {
      const free = clientWithKey(emulator, KEYS.free);
      const response = await free.search({ query: 'Acme Robotics revenue', max_num_results: 20, relevance_threshold: 0.3 });
      const gated = response.results.filter((result) => result.source !== 'web' && findDataset(result.source)?.requires_subscription);
      expect(response.results.length).toBeGreaterThan(0);
      expect(gated).toEqual([]);
      await free.close();
    });

    it('keeps the open academic datasets on every plan', async () => {
      const free = clientWithKey(emulator, KEYS.free);
      const response = await free.search({ query: 'retrieval augmented generation', included_sources: ['svc/svc-arxiv'] });
      expect(response.results[0]?.source).toBe('svc/svc-arxiv');
      await free.close();
    });

    it('answers 403 when a subscription dataset is asked for by name', async () => {
      const answer = await search({ query: 'Acme Robotics', included_sources: ['svc/svc-sec-filings'] }, KEYS.free);
      expect(answer.status).toBe(403);
      expect(answer.json).toEqual({ success: false, error: 'Dataset svc/svc-sec-filings requires a subscription' });
    });
  });

  it('answers 402 and deducts nothing when the credits do not cover the results', async () => {
    const poor = clientWithKey(emulator, KEYS.poor);
    const error = await rejectionOf(poor.search({ query: 'Acme Robotics' }));
    expect(error).toBeInstanceOf(ResearchApiError);
    expect(error).toMatchObject({ status: 402, serviceMessage: 'Insufficient credits. Please top up your account.' });
    expect(emulator.accounts.find(KEYS.poor)?.creditsUsd).toBe(0);
    await poor.close();
  });
});

describe('structured results', () => {
  let client: ResearchClient;
  useEmulator({ accounts: TEST_ACCOUNTS }, (started) => {
    client = clientWithKey(started.emulator, KEYS.full);
  });

  it('returns a market dataset record as rows with data_type structured, priced by their JSON length', async () => {
    const response = await client.search({ query: 'ACMR daily prices', included_sources: ['svc/svc-stocks'] });
    const result = response.results.find((item) => item.source === 'svc/svc-stocks');
    expect(result?.data_type).toBe('structured');
    expect(Array.isArray(result?.content)).toBe(true);
    expect(result?.content).toContainEqual(expect.objectContaining({ symbol: 'ACMR', close: 38.12 }));
    expect(result?.length).toBe(JSON.stringify(result?.content).length);
  });
});
