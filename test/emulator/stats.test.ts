import { ResearchApiError } from '../../src/api/errors';
import type { RunningEmulator } from '../../src/emulator/server';
import { clientWithKey, KEYS, rawCall, rejectionOf, TEST_ACCOUNTS, useEmulator } from './helpers';

describe('stats and operator routes', () => {
  let emulator: RunningEmulator;
  useEmulator({ accounts: TEST_ACCOUNTS }, (started) => ({ emulator } = started));

  const admin = (method: string, path: string, body?: unknown) => rawCall(emulator, method, `/_emulator${path}`, { body, apiKey: null });

  it('serves the counters at GET /_emulator/stats without a key', async () => {
    await rawCall(emulator, 'POST', '/search', { body: { query: 'Acme Robotics' }, apiKey: KEYS.full });
    await rawCall(emulator, 'POST', '/search', { body: { query: 'x', bad: 1 }, apiKey: KEYS.full });
    await rawCall(emulator, 'GET', '/datasources', { apiKey: 'key_unknown_0001' });
    await rawCall(emulator, 'GET', '/nowhere');
    await rawCall(emulator, 'POST', '/deepresearch/tasks', { body: { query: 'q', mode: 'fast', metadata: { b: 2, a: 1 } }, apiKey: KEYS.full });
    await rawCall(emulator, 'POST', '/deepresearch/tasks', { body: { query: 'q', mode: 'fast', metadata: { a: 1, b: 2 } }, apiKey: KEYS.full });
    const answer = await admin('GET', '/stats');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      requests: { search: { 200: 1, 400: 1 }, 'datasources.list': { 401: 1 }, unmatched: { 404: 1 }, 'deepresearch.create': { 200: 2 } },
      tasksCreated: 2,
      tasksCreatedByMetadata: { '{"a":1,"b":2}': 2 },
      webhooks: { delivered: 0, failed: 0, dropped: 0, duplicated: 0 },
      droppedConnections: {},
      injectedFaults: {},
      rateLimited: 0,
      chargedUsd: expect.any(Number),
    });
  });

  it('reports the credits charged', async () => {
    await rawCall(emulator, 'POST', '/contents', { body: { urls: ['https://example.org/a', 'https://example.org/b'] }, apiKey: KEYS.full });
    expect(emulator.stats.snapshot().chargedUsd).toBeCloseTo(0.002, 6);
  });

  it('tops up an account so a refused paid call succeeds afterwards', async () => {
    const poor = clientWithKey(emulator, KEYS.poor);
    const refused = await rejectionOf(poor.createTask({ query: 'needs credits', mode: 'standard' }));
    expect(refused).toBeInstanceOf(ResearchApiError);
    expect(refused).toMatchObject({ status: 402 });
    const topUp = await admin('POST', `/accounts/${KEYS.poor}/credits`, { creditsUsd: 1 });
    expect(topUp.json).toEqual({ success: true, creditsUsd: 1 });
    await expect(poor.createTask({ query: 'needs credits', mode: 'standard' })).resolves.toMatchObject({ mode: 'standard' });
    expect(emulator.accounts.find(KEYS.poor)?.creditsUsd).toBeCloseTo(0.5, 6);
    await poor.close();
  });

  it('sets a balance outright with mode set', async () => {
    const answer = await admin('POST', `/accounts/${KEYS.full}/credits`, { creditsUsd: 0, mode: 'set' });
    expect(answer.json).toEqual({ success: true, creditsUsd: 0 });
    expect((await rawCall(emulator, 'POST', '/contents', { body: { urls: ['https://example.org/a'] }, apiKey: KEYS.full })).status).toBe(402);
  });

  it('shows an account without revealing other accounts', async () => {
    const answer = await admin('GET', `/accounts/${KEYS.free}`);
    expect(answer.json).toEqual({ success: true, organization: 'org_b', creditsUsd: 50, permissions: ['inference'], subscription: false });
  });

  it.each([
    ['POST', '/accounts/key_unknown_0001/credits', { creditsUsd: 1 }, 404, 'Unknown account'],
    ['POST', `/accounts/${KEYS.full}/credits`, { creditsUsd: -1 }, 400, 'creditsUsd: must be > 0 to add'],
    ['POST', `/accounts/${KEYS.full}/credits`, { credits: 1 }, 400, 'creditsUsd'],
    ['GET', '/nothing', undefined, 404, 'Not found'],
    ['DELETE', '/stats', undefined, 405, 'not allowed'],
  ])('answers %s /_emulator%s with %#', async (method, path, body, status, message) => {
    const answer = await admin(method, path, body);
    expect(answer.status).toBe(status);
    expect(answer.json).toEqual({ success: false, error: expect.stringContaining(message) });
  });

  it('answers GET /_emulator/health', async () => {
    expect((await admin('GET', '/health')).json).toEqual({ success: true });
  });
});
