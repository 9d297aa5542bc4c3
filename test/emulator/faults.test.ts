import type { ResearchClient } from '../../src/api/client';
import { ResearchApiError } from '../../src/api/errors';
import type { RunningEmulator } from '../../src/emulator/server';
import { rawCall, rejectionOf, startWithClient, useEmulator } from './helpers';

describe('fault injection', () => {
  let emulator: RunningEmulator;
  let client: ResearchClient;
  useEmulator({}, (started) => ({ emulator, client } = started));

  const setFaults = (faults: unknown) => rawCall(emulator, 'POST', '/_emulator/faults', { body: faults, apiKey: null });

  it('delays answers by a fixed latency', async () => {
    emulator.faults.replace({ 'datasources.categories': { latencyMs: 150 } });
    const started = Date.now();
    await client.listDatasourceCategories();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(emulator.stats.snapshot().injectedFaults['datasources.categories']).toEqual({ latency: 1 });
  });

  it('draws latency from a [min, max] range', async () => {
    emulator.faults.replace({ 'datasources.categories': { latencyMs: [60, 90] } });
    const started = Date.now();
    await client.listDatasourceCategories();
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(55);
    expect(elapsed).toBeLessThan(400);
  });

  it('holds every n-th request on a route for the configured time (a slow call), and only those', async () => {
    emulator.faults.replace({ 'datasources.categories': { slowCalls: { every: 3, ms: 300 } } });
    const times: number[] = [];
    for (let call = 0; call < 6; call++) {
      const started = Date.now();
      await client.listDatasourceCategories();
      times.push(Date.now() - started);
    }
    expect(times.map((ms) => ms >= 290)).toEqual([false, false, true, false, false, true]);
    expect(emulator.stats.snapshot().injectedFaults['datasources.categories']).toEqual({ slow: 2 });
  });

  it('answers 500, 502 or 503 for the configured share of requests, which the client marks retryable', async () => {
    emulator.faults.replace({ search: { errorRate: 1 } });
    const error = await rejectionOf(client.search({ query: 'Acme Robotics' }));
    expect(error).toBeInstanceOf(ResearchApiError);
    expect([500, 502, 503]).toContain((error as ResearchApiError).status);
    expect(error).toMatchObject({ retryable: true, serviceMessage: 'Internal server error, please try again later' });
    expect(emulator.accounts.find(emulator.defaultApiKey)?.creditsUsd).toBe(100);
  });

  it('fails about errorRate of the requests', async () => {
    emulator.faults.replace({ 'datasources.categories': { errorRate: 0.3 } });
    const statuses: number[] = [];
    for (let index = 0; index < 200; index++) statuses.push((await rawCall(emulator, 'GET', '/datasources/categories')).status);
    const failed = statuses.filter((status) => status >= 500).length;
    expect(failed).toBeGreaterThan(35);
    expect(failed).toBeLessThan(85);
  });

  it('answers 429 bursts with Retry-After: every 2 requests, the next 3 are refused', async () => {
    emulator.faults.replace({ 'datasources.categories': { rateLimitBurst: { every: 2, count: 3, retryAfterSeconds: 4 } } });
    const answers = [];
    for (let index = 0; index < 7; index++) answers.push(await rawCall(emulator, 'GET', '/datasources/categories'));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429, 429, 429, 200, 200]);
    expect(answers[2]?.headers.get('retry-after')).toBe('4');
    const error = await rejectionOf(client.listDatasourceCategories());
    expect(error).toMatchObject({ status: 429, retryAfterMs: 4000, retryable: true });
  });

  it('creates the task and then drops the connection without an answer, counted in stats', async () => {
    emulator.faults.replace({ 'deepresearch.create': { dropAfterProcessingRate: 1 } });
    const error = await rejectionOf(client.createTask({ query: 'an ambiguous outcome', mode: 'fast', metadata: { item: 'a-1' } }));
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    const stats = emulator.stats.snapshot();
    expect(stats.tasksCreated).toBe(1);
    expect(stats.tasksCreatedByMetadata).toEqual({ '{"item":"a-1"}': 1 });
    expect(stats.droppedConnections).toEqual({ 'deepresearch.create': 1 });
    emulator.faults.replace({});
    const tasks = await client.listTasks();
    expect(tasks.map((task) => task.query)).toEqual(['an ambiguous outcome']);
    expect((await client.getTask(tasks[0]!.deepresearch_id)).metadata).toEqual({ item: 'a-1' });
  });

  it('applies the * entry to every route without its own', async () => {
    emulator.faults.replace({ '*': { errorRate: 1 }, 'datasources.list': {} });
    expect((await rawCall(emulator, 'GET', '/datasources/categories')).status).toBeGreaterThanOrEqual(500);
    expect((await rawCall(emulator, 'GET', '/datasources')).status).toBe(200);
  });

  it('answers 206 with the failed source named when a source fails', async () => {
    emulator.faults.replace({ search: { sourceFailureRate: 1 } });
    const response = await client.search({ query: 'Acme Robotics revenue', max_num_results: 20 });
    expect(response.partial).toBe(true);
    const failed = /source (\S+) failed/.exec(response.error ?? '')?.[1];
    expect(failed).toBeDefined();
    expect(response.results.some((result) => result.source === failed)).toBe(false);
  });

  it('replaces the fault configuration at run time through POST /_emulator/faults', async () => {
    const set = await setFaults({ 'datasources.categories': { errorRate: 1 } });
    expect(set.json).toEqual({ success: true, faults: { 'datasources.categories': { errorRate: 1 } } });
    expect((await rawCall(emulator, 'GET', '/datasources/categories')).status).toBeGreaterThanOrEqual(500);
    await setFaults({});
    expect((await rawCall(emulator, 'GET', '/datasources/categories')).status).toBe(200);
    expect((await rawCall(emulator, 'GET', '/_emulator/faults', { apiKey: null })).json).toEqual({ success: true, faults: {} });
  });

  it.each([
    [{ serach: { errorRate: 1 } }, 'faults: unknown route "serach"'],
    [{ search: { errorRate: 7 } }, 'faults.search.errorRate: must be from 0 to 1'],
    [{ search: { latencyMs: [9, 3] } }, 'faults.search.latencyMs'],
  ])('refuses an invalid fault configuration %j with 400', async (faults, message) => {
    const answer = await setFaults(faults);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ success: false, error: expect.stringContaining(message) });
  });

  it('starts with the faults given as options', async () => {
    const other = await startWithClient({ faults: { search: { errorRate: 1 } } });
    expect((await rawCall(other.emulator, 'POST', '/search', { body: { query: 'x' } })).status).toBeGreaterThanOrEqual(500);
    await other.close();
  });

  it.each([
    [{ loss: 1.5 }, 'research.webhooks.loss: must be from 0 to 1'],
    [{ duplicate: -0.1 }, 'research.webhooks.duplicate: must be from 0 to 1'],
    [{ reorderWindow: 1 }, 'research.webhooks.reorderWindow: must be at least 2'],
    [{ reorderHoldMs: 0 }, 'research.webhooks.reorderHoldMs: must be more than 0'],
  ])('refuses webhook faults %j, naming the field and its rule', async (webhooks, message) => {
    await expect(startWithClient({ research: { webhooks } })).rejects.toThrow(message);
  });
});
