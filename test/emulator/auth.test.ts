import { ResearchApiError } from '../../src/api/errors';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import { clientWithKey, KEYS, rawCall, rejectionOf, TEST_ACCOUNTS } from './helpers';

describe('authentication and permissions', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await startEmulator({ seed: 3, accounts: TEST_ACCOUNTS });
  });
  afterEach(() => emulator.close());

  it('answers 401 "Invalid API key" without a key', async () => {
    const answer = await rawCall(emulator, 'POST', '/search', { apiKey: null, body: { query: 'robots' } });
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ success: false, error: 'Invalid API key' });
  });

  it('answers 401 for an unknown key, and the client reports it', async () => {
    const client = clientWithKey(emulator, 'key_unknown_0001');
    const error = await rejectionOf(client.listDatasources());
    expect(error).toBeInstanceOf(ResearchApiError);
    expect(error).toMatchObject({ status: 401, serviceMessage: 'Invalid API key', retryable: false });
    await client.close();
  });

  it('does not take the key as a Bearer token', async () => {
    const answer = await rawCall(emulator, 'GET', '/datasources', { apiKey: null, headers: { authorization: `Bearer ${KEYS.full}` } });
    expect(answer.status).toBe(401);
  });

  it('lets a key without the inference permission search', async () => {
    const answer = await rawCall(emulator, 'POST', '/search', { apiKey: KEYS.noInference, body: { query: 'Acme Robotics' } });
    expect(answer.status).toBe(200);
  });

  it.each([
    ['GET', '/workflows', undefined],
    ['POST', '/workflows/company-profile/preview', { workflow_params: { company: 'Acme' } }],
    ['DELETE', '/workflows/weekly-market-brief', undefined],
    ['POST', '/deepresearch/tasks', { query: 'a question' }],
  ])('answers 403 on %s %s for a key without the inference permission', async (method, path, body) => {
    const answer = await rawCall(emulator, method, path, { apiKey: KEYS.noInference, body });
    expect(answer.status).toBe(403);
    expect(answer.json).toEqual({ success: false, error: 'API key does not have inference permission' });
  });

  it('checks the key before the permission', async () => {
    const answer = await rawCall(emulator, 'GET', '/workflows', { apiKey: 'key_unknown_0001' });
    expect(answer.status).toBe(401);
  });

  it('never charges a refused request', async () => {
    await rawCall(emulator, 'POST', '/deepresearch/tasks', { apiKey: KEYS.noInference, body: { query: 'a question' } });
    expect(emulator.accounts.find(KEYS.noInference)?.creditsUsd).toBe(50);
  });
});
