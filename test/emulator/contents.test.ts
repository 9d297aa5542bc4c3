import type { ResearchClient } from '../../src/api/client';
import type { RunningEmulator } from '../../src/emulator/server';
import { rawCall, startWithClient, useEmulator } from './helpers';
import { FakeClock } from '../support/fake-clock';

describe('POST /v1/contents', () => {
  let emulator: RunningEmulator;
  let client: ResearchClient;
  useEmulator({}, (started) => ({ emulator, client } = started));

  const balance = () => emulator.accounts.find(emulator.defaultApiKey)?.creditsUsd ?? Number.NaN;

  it('returns a corpus page verbatim and charges 0.001 USD per URL', async () => {
    const response = await client.contents({ urls: ['https://www.acme-robotics.com/about'] });
    expect(response).toMatchObject({ success: true, urls_requested: 1, urls_processed: 1, urls_failed: 0, total_cost_dollars: 0.001 });
    expect(response.results[0]).toMatchObject({
      url: 'https://www.acme-robotics.com/about',
      title: 'About Acme Robotics | Warehouse automation',
      price: 0.001,
    });
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
    expect(response.results.map((result) => [result.url, result.status])).toEqual([
      ['https://down.invalid/page', 'failed'],
      ['https://example.org/ok', 'success'],
    ]);
    expect(response.results[0]).toEqual({ url: 'https://down.invalid/page', status: 'failed', error: expect.any(String) });
    expect(response.results[1]).toMatchObject({ source: 'web', content: expect.any(String) });
  });

  it('runs more than 10 URLs as an async job: 202, then the job route reports the results once it has ended', async () => {
    const clock = new FakeClock();
    const started0 = await startWithClient({ clock });
    const { client } = started0;
    const urls = Array.from({ length: 12 }, (_, index) => `https://example.org/page-${index}`);
    const started = await client.startContentsJob({ urls });
    expect(started).toMatchObject({ job_id: expect.any(String), status: 'pending', urls_total: 12 });
    expect((await client.getContentsJob(started.job_id)).status).toMatch(/pending|processing/);
    await clock.advanceTo(clock.now() + 60_000);
    const done = await client.getContentsJob(started.job_id);
    expect(done).toMatchObject({ status: 'completed', urls_processed: 12, urls_failed: 0, actual_cost_dollars: 0.012 });
    expect(done.results).toHaveLength(12);
    await started0.close();
  });

  it('refuses more than 10 URLs without async, naming the field', async () => {
    const urls = Array.from({ length: 11 }, (_, index) => `https://example.org/page-${index}`);
    const answer = await rawCall(emulator, 'POST', '/contents', { body: { urls } });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: expect.stringContaining('urls: at most 10 URLs per request') });
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
