import type { ResearchClient } from '../../src/api/client';
import type { RunningEmulator } from '../../src/emulator/server';
import { rawCall, startWithClient, useEmulator } from './helpers';

describe('POST /v1/contents', () => {
  let emulator: RunningEmulator;
  let client: ResearchClient;
  useEmulator({}, (started) => ({ emulator, client } = started));

  const balance = () => emulator.accounts.find(emulator.defaultApiKey)?.creditsUsd ?? Number.NaN;

  it('returns a corpus page verbatim and charges 0.001 USD per URL', async () => {
    const response = await client.contents({ urls: ['https://www.acme-robotics.com/about'] });
    expect(response).toMatchObject({ success: true, urls_requested: 1, urls_processed: 1, urls_failed: 0, total_cost_dollars: 0.001 });
    expect(response.results[0]).toMatchObject({ url: 'https://www.acme-robotics.com/about', title: 'About Acme Robotics | Warehouse automation', price: 0.001 });
    expect(String(response.results[0]?.content)).toContain('autonomous mobile robots');
    expect(response.tx_id).toMatch(/^tx_/);
    expect(balance()).toBeCloseTo(99.999, 6);
  });

  it('returns the same synthetic page for the same unknown URL, even across seeds', async () => {
    const first = await client.contents({ urls: ['https://example.org/reports/battery-market'] });
    const other = await startWithClient({ seed: 999 });
    const second = await other.client.contents({ urls: ['https://example.org/reports/battery-market'] });
    await other.close();
    expect(first.results[0]?.content).toEqual(second.results[0]?.content);
    expect(first.results[0]?.title).toContain('Battery Market');
  });

  it('adds 0.001 USD per URL and a summary when summary is requested', async () => {
    const response = await client.contents({ urls: ['https://www.acme-robotics.com/about', 'https://example.org/a'], summary: true });
    expect(response.total_cost_dollars).toBeCloseTo(0.004, 6);
    expect(response.results.every((result) => typeof result.summary === 'string' && result.price === 0.002)).toBe(true);
  });

  it('fills a summary JSON schema with values of the declared types', async () => {
    const schema = { type: 'object', properties: { company: { type: 'string' }, employees: { type: 'integer' }, public: { type: 'boolean' } } };
    const response = await client.contents({ urls: ['https://www.acme-robotics.com/about'], summary: schema });
    expect(response.results[0]?.summary).toEqual({ company: expect.any(String), employees: expect.any(Number), public: expect.any(Boolean) });
  });

  it('counts unreachable URLs as failed and does not charge them', async () => {
    const response = await client.contents({ urls: ['https://down.invalid/page', 'https://example.org/ok'] });
    expect(response).toMatchObject({ urls_requested: 2, urls_processed: 1, urls_failed: 1, total_cost_dollars: 0.001 });
    expect(response.error).toContain('https://down.invalid/page');
  });

  it('truncates content to response_length', async () => {
    const response = await client.contents({ urls: ['https://www.acme-robotics.com/about'], response_length: 80 });
    expect(response.results[0]?.length).toBeLessThanOrEqual(80);
  });

  it.each([
    [{ urls: [] }, 'urls: needs at least one URL'],
    [{ urls: Array.from({ length: 11 }, (_, index) => `https://example.org/${index}`) }, 'urls: at most 10 URLs per request'],
    [{ urls: ['not a url'] }, 'urls[0]: must be a URL'],
  ])('answers 400 for %j', async (body, message) => {
    const answer = await rawCall(emulator, 'POST', '/contents', { body });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ success: false, error: expect.stringContaining(message) });
  });
});
