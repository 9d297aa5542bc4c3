import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import { FakeClock } from '../support/fake-clock';
import { rawCall, TEST_ACCOUNTS, KEYS } from './helpers';

describe('per-key rate limit', () => {
  let emulator: RunningEmulator;
  let clock: FakeClock;
  beforeEach(async () => {
    clock = new FakeClock();
    emulator = await startEmulator({
      clock,
      accounts: TEST_ACCOUNTS,
      rateLimit: { requestsPerSecond: 0.5, burst: 2, routes: { 'datasources.categories': false, search: { requestsPerSecond: 10, burst: 5 } } },
    });
  });
  afterEach(() => emulator.close());

  const list = (apiKey: string = KEYS.full) => rawCall(emulator, 'GET', '/datasources', { apiKey });

  it('answers 429 with Retry-After in seconds beyond the burst', async () => {
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(200);
    const refused = await list();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(refused.json).toEqual({ success: false, error: 'Rate limit exceeded. Please retry later.' });
    expect(emulator.stats.snapshot()).toMatchObject({ rateLimited: 1, requests: { 'datasources.list': { 200: 2, 429: 1 } } });
  });

  it('refills on the emulator clock', async () => {
    await list();
    await list();
    expect((await list()).status).toBe(429);
    await clock.advanceTo(clock.now() + 2000);
    expect((await list()).status).toBe(200);
  });

  it('counts each key separately', async () => {
    await list();
    await list();
    expect((await list()).status).toBe(429);
    expect((await list(KEYS.free)).status).toBe(200);
  });

  it('shares one bucket across routes, except routes with their own rule or exempted', async () => {
    await list();
    await rawCall(emulator, 'GET', '/workflows', { apiKey: KEYS.full });
    expect((await list()).status).toBe(429);
    for (let index = 0; index < 5; index++) expect((await rawCall(emulator, 'GET', '/datasources/categories', { apiKey: KEYS.full })).status).toBe(200);
    for (let index = 0; index < 5; index++)
      expect((await rawCall(emulator, 'POST', '/search', { apiKey: KEYS.full, body: { query: 'Acme' } })).status).not.toBe(429);
    expect((await rawCall(emulator, 'POST', '/search', { apiKey: KEYS.full, body: { query: 'Acme' } })).status).toBe(429);
  });

  it('refuses an override for an unknown route', async () => {
    await expect(startEmulator({ rateLimit: { requestsPerSecond: 1, burst: 1, routes: { nope: false } } })).rejects.toThrow(
      'rateLimit.routes.nope: unknown route',
    );
  });
});
