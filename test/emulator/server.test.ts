import { Agent, request } from 'undici';
import { EmulatorOptionsError } from '../../src/emulator/options';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import { FakeClock } from '../support/fake-clock';
import { nodeRequest, rawCall, rejectionOf } from './helpers';

describe('emulator server', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await startEmulator({ seed: 1, maxBodyBytes: 2048 });
  });
  afterEach(() => emulator.close());

  it('listens on a free loopback port and exposes a /v1 base URL', () => {
    expect(emulator.port).toBeGreaterThan(0);
    expect(emulator.origin).toBe(`http://127.0.0.1:${emulator.port}`);
    expect(emulator.url).toBe(`${emulator.origin}/v1`);
    expect(emulator.defaultApiKey).toMatch(/^emu_[0-9a-f]{40}$/);
  });

  it('gives the generated default account 100 USD, both permissions and a subscription', () => {
    const account = emulator.accounts.find(emulator.defaultApiKey);
    expect(account).toMatchObject({ creditsUsd: 100, subscription: true, organization: 'org_emulator' });
    expect([...(account?.permissions ?? [])].sort()).toEqual(['increased_max_results', 'inference']);
  });

  it('answers 404 with the common error body for an unknown route', async () => {
    const answer = await rawCall(emulator, 'GET', '/nope');
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ success: false, error: 'Not found: GET /v1/nope' });
  });

  it('answers 405 with an Allow header for a known path and the wrong method', async () => {
    const answer = await rawCall(emulator, 'GET', '/search');
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
    expect(answer.json).toMatchObject({ success: false });
  });

  it('lists every method a path allows, and answers HEAD on a GET route with 405 too', async () => {
    const patch = await rawCall(emulator, 'POST', '/workflows/weekly-market-brief');
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('DELETE, GET, PATCH');
    expect(patch.json).toEqual({ success: false, error: 'Method POST not allowed on /v1/workflows/weekly-market-brief' });
    const head = await nodeRequest(`${emulator.url}/datasources`, 'HEAD', { 'x-api-key': emulator.defaultApiKey });
    expect(head.status).toBe(405);
  });

  it('decodes path parameters, ignores a trailing slash and refuses a malformed escape', async () => {
    const missing = await rawCall(emulator, 'GET', '/workflows/no%20such%2Fslug');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ error: 'workflow_not_found', message: 'No workflow matches the slug "no such/slug"' });
    expect((await rawCall(emulator, 'GET', '/datasources/categories/')).status).toBe(200);
    const malformed = await rawCall(emulator, 'GET', '/deepresearch/tasks/%E0%A4%A/status');
    expect(malformed.status).toBe(400);
    expect(malformed.json).toEqual({ success: false, error: 'Malformed path' });
  });

  it('checks the key before it parses the body', async () => {
    const answer = await rawCall(emulator, 'POST', '/search', { body: '{"query": ', apiKey: 'key_unknown_0001' });
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ success: false, error: 'Invalid API key' });
  });

  it('reads a body whatever its content type says', async () => {
    const answer = await rawCall(emulator, 'POST', '/search', { body: { query: 'Acme Robotics' }, headers: { 'content-type': 'text/plain' } });
    expect(answer.status).toBe(200);
  });

  it('rejects invalid JSON with 400 and the parser message', async () => {
    const answer = await rawCall(emulator, 'POST', '/search', { body: '{"query": ' });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ success: false, error: expect.stringMatching(/^Invalid JSON body: /) });
  });

  it('refuses a body over the size limit with 413', async () => {
    const answer = await rawCall(emulator, 'POST', '/search', { body: { query: 'x'.repeat(5000) } });
    expect(answer.status).toBe(413);
    expect(answer.json).toEqual({ success: false, error: 'Request body exceeds 2048 bytes' });
    expect(answer.headers.get('connection')).toBe('close');
    expect(emulator.stats.snapshot().requests).toEqual({ search: { 413: 1 } });
    const operator = await rawCall(emulator, 'POST', '/_emulator/faults', { body: { '*': { errorRate: 0 }, pad: 'x'.repeat(5000) }, apiKey: null });
    expect(operator.status).toBe(413);
    expect(emulator.stats.snapshot().requests).toEqual({ search: { 413: 1 } });
  });

  it('reads the API key header whatever its case', async () => {
    const answer = await nodeRequest(`${emulator.url}/datasources/categories`, 'GET', { 'X-API-KEY': emulator.defaultApiKey });
    expect(answer.status).toBe(200);
  });

  it('keeps connections alive between requests', async () => {
    const agent = new Agent({ connections: 1 });
    const sockets = new Set<unknown>();
    agent.on('connect', (_origin, targets) => sockets.add(targets));
    for (let index = 0; index < 3; index++) {
      const response = await request(`${emulator.url}/datasources/categories`, { dispatcher: agent, headers: { 'x-api-key': emulator.defaultApiKey } });
      expect(response.statusCode).toBe(200);
      await response.body.text();
    }
    expect(sockets.size).toBe(1);
    await agent.close();
  });

  it('tags every answer with a request id', async () => {
    const answer = await rawCall(emulator, 'GET', '/datasources/categories');
    expect(answer.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{8}$/);
  });
});

describe('emulator close', () => {
  it('ends idle keep-alive connections at once and stops accepting new ones', async () => {
    const emulator = await startEmulator();
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    const response = await request(`${emulator.url}/datasources/categories`, { dispatcher: agent, headers: { 'x-api-key': emulator.defaultApiKey } });
    await response.body.text();
    const started = Date.now();
    await emulator.close();
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(fetch(`${emulator.url}/datasources/categories`)).rejects.toThrow();
    await agent.close();
  });

  it('cuts a stream in progress and cancels every emulator timer', async () => {
    const emulator = await startEmulator({ streamDelayMs: 200 });
    await rawCall(emulator, 'POST', '/deepresearch/tasks', { body: { query: 'a task that keeps timers', mode: 'fast' } });
    expect(emulator.clock.pending()).toBeGreaterThan(0);
    const stream = fetch(`${emulator.url}/answer`, {
      method: 'POST',
      headers: { 'x-api-key': emulator.defaultApiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'Acme Robotics' }),
    }).then((response) => response.text());
    await new Promise((resolve) => setTimeout(resolve, 50));
    await emulator.close();
    await expect(stream).rejects.toThrow();
    expect(emulator.clock.pending()).toBe(0);
  });

  it('can be closed twice', async () => {
    const emulator = await startEmulator();
    await emulator.close();
    await expect(emulator.close()).resolves.toBeUndefined();
  });
});

describe('emulator options', () => {
  it.each([
    [{ host: '0.0.0.0' }, 'host: must be a loopback address'],
    [{ port: 70000 }, 'port: must be from 0 to 65535'],
    [{ speed: 0 }, 'speed: must be a positive number'],
    [{ clock: new FakeClock(), speed: 2 }, 'speed: give clock or speed, not both'],
    [{ accounts: [] }, 'accounts: needs at least one account'],
    [
      {
        accounts: [
          { key: 'key_same_00001', creditsUsd: 1 },
          { key: 'key_same_00001', creditsUsd: 2 },
        ],
      },
      'accounts[1].key: duplicate key',
    ],
    [{ accounts: [{ key: 'short', creditsUsd: 1 }] }, 'accounts[0].key: must be at least 8 characters'],
    [{ faults: { search: { errorRate: 2 } } }, 'faults.search.errorRate: must be from 0 to 1'],
    [{ faults: { serach: { errorRate: 0.5 } } }, 'faults.serach: unknown route'],
    [{ rateLimit: { requestsPerSecond: 0, burst: 1 } }, 'rateLimit.requestsPerSecond: must be a positive number'],
    [{ research: { capacity: 0 } }, 'research.capacity'],
    [{ nonsense: true }, 'Unrecognized key'],
  ])('rejects %j naming the field and the rule', async (options, message) => {
    const error = await rejectionOf(startEmulator(options as never));
    expect(error).toBeInstanceOf(EmulatorOptionsError);
    expect((error as Error).message).toContain(message);
  });

  it('runs its clock faster with speed', async () => {
    const emulator = await startEmulator({ speed: 1000 });
    const before = emulator.clock.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(emulator.clock.now() - before).toBeGreaterThanOrEqual(40_000);
    await emulator.close();
  });

  it('reads time from an injected clock', async () => {
    const clock = new FakeClock();
    const emulator = await startEmulator({ clock });
    expect(emulator.clock.now()).toBe(clock.now());
    await emulator.close();
  });

  it('uses the given accounts, the first key being the default', async () => {
    const emulator = await startEmulator({ accounts: [{ key: 'key_given_00001', creditsUsd: 3 }] });
    expect(emulator.defaultApiKey).toBe('key_given_00001');
    expect(emulator.accounts.find('key_given_00001')).toMatchObject({ creditsUsd: 3, subscription: true, organization: 'org_1' });
    await emulator.close();
  });
});
