import { getEventListeners } from 'node:events';
import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { ResearchApiError, ResearchClient } from '../../src/api';

const ORIGIN = 'https://api.example.com';
const BASE_URL = `${ORIGIN}/v1`;
const API_KEY = 'rk_live_SECRET_5f2b9c0d7e';
const CREATED_AT = '2025-03-01T10:00:00.000Z';

/** What the client sent for one intercepted call. */
interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

interface ServeOptions {
  status?: number;
  headers?: Record<string, string>;
  origin?: string;
}

let agent: MockAgent;
let client: ResearchClient;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  client = new ResearchClient({ apiKey: API_KEY, baseUrl: BASE_URL, dispatcher: agent });
});

afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await client.close();
  await agent.close();
});

/** Answers one `method path` call with `data` (JSON unless a string) and records what was sent. */
function serve(method: string, path: string, data: unknown, options: ServeOptions = {}): Sent[] {
  const sent: Sent[] = [];
  agent
    .get(options.origin ?? ORIGIN)
    .intercept({ method, path })
    .reply((request) => {
      sent.push({
        method: request.method,
        path: request.path,
        headers: { ...(request.headers as Record<string, string>) },
        body: typeof request.body === 'string' ? JSON.parse(request.body) : (request.body ?? undefined),
      });
      return {
        statusCode: options.status ?? 200,
        data: typeof data === 'string' || Buffer.isBuffer(data) ? data : JSON.stringify(data),
        responseOptions: { headers: { 'content-type': 'application/json', ...options.headers } },
      };
    });
  return sent;
}

/** The one call recorded by `serve`, checked for method, path and the key. */
function only(sent: Sent[], method: string, path: string): Sent {
  expect(sent).toHaveLength(1);
  const [call] = sent;
  expect(call).toMatchObject({ method, path });
  expect(call!.headers['x-api-key']).toBe(API_KEY);
  return call!;
}

/** The `ResearchApiError` a promise rejects with (fails the test when it resolves or throws something else). */
async function failure(promise: Promise<unknown>): Promise<ResearchApiError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof ResearchApiError)) throw new Error(`expected a ResearchApiError, got ${inspect(outcome)}`);
  return outcome;
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

const counts = { total: 2, queued: 2, running: 0, completed: 0, failed: 0, cancelled: 0 };
const taskStatus = {
  deepresearch_id: 'dr_1',
  status: 'running',
  query: 'EU battery makers',
  mode: 'standard',
  created_at: CREATED_AT,
  progress: { current_step: 2, total_steps: 15 },
};
const action = { success: true, message: 'ok', deepresearch_id: 'dr_1' };
const batch = { batch_id: 'batch_1', name: 'scan', status: 'open', mode: 'fast', counts };
const workflow = { slug: 'competitor-scan', name: 'Competitor scan', scope: 'curated', version: 2, recommended_mode: 'standard' };
const datasource = {
  id: 'svc/svc-stocks',
  name: 'Stocks',
  description: 'Equity prices',
  category: 'markets',
  type: 'structured',
  topics: ['equities'],
  modality: ['tabular'],
  example_queries: ['AAPL closing price'],
  pricing: { cpm: 1.5 },
  update_frequency: 'daily',
  size: 60_000,
};

describe('happy paths: search, contents and answer', () => {
  const searchBody = {
    success: true,
    error: null,
    tx_id: 'tx_1',
    query: 'battery recycling',
    results: [{ id: 'https://a.example', title: 'A', url: 'https://a.example', content: 'text', source: 'web', price: 0.001, length: 4, relevance_score: 0.9 }],
    results_by_source: { web: 1 },
    total_deduction_dollars: 0.001,
    total_characters: 4,
  };

  test('search posts the request and returns the parsed results, not partial on 200', async () => {
    const sent = serve('POST', '/v1/search', searchBody);
    const result = await client.search({ query: 'battery recycling', max_num_results: 10, source_biases: { 'nature.com': 3 } });
    const call = only(sent, 'POST', '/v1/search');
    expect(call.body).toEqual({ query: 'battery recycling', max_num_results: 10, source_biases: { 'nature.com': 3 } });
    expect(call.headers['content-type']).toBe('application/json');
    expect(result).toEqual({ ...searchBody, partial: false });
  });

  test('search marks a 206 answer as partial', async () => {
    serve('POST', '/v1/search', { ...searchBody, results: [], results_by_source: {} }, { status: 206 });
    const result = await client.search({ query: 'battery recycling' });
    expect(result.partial).toBe(true);
    expect(result.results).toEqual([]);
  });

  test('contents posts the URLs and returns the extracted pages', async () => {
    const body = {
      success: true,
      results: [
        { url: 'https://a.example', status: 'success', title: 'A', content: 'clean text', length: 10, source: 'web' },
        { url: 'https://b.invalid', status: 'failed', error: 'unreachable' },
      ],
    };
    const sent = serve('POST', '/v1/contents', body);
    await expect(client.contents({ urls: ['https://a.example'], summary: true, extract_effort: 'high' })).resolves.toEqual(body);
    expect(only(sent, 'POST', '/v1/contents').body).toEqual({ urls: ['https://a.example'], summary: true, extract_effort: 'high' });
  });

  test('answer streams typed events ending with done', async () => {
    const stream = [
      'data: {"search_results":[{"title":"A","url":"https://a.example","content":"x"}]}',
      'data: {"choices":[{"delta":{"role":"assistant","content":"Hel"},"index":0}]}',
      'data: {"choices":[{"delta":{"content":"lo"},"index":0}]}',
      'data: {"success":true,"tx_id":"ai_tx_1","cost":{"total_deduction_dollars":0.1,"search_deduction_dollars":0.01,"ai_deduction_dollars":0.09}}',
      'data: [DONE]',
    ]
      .map((line) => `${line}\n\n`)
      .join('');
    const sent = serve('POST', '/v1/answer', stream, { headers: { 'content-type': 'text/event-stream' } });
    const events = await collect(client.answer({ query: 'Who makes batteries?', country_code: 'DE' }));
    const call = only(sent, 'POST', '/v1/answer');
    expect(call.body).toEqual({ query: 'Who makes batteries?', country_code: 'DE' });
    expect(call.headers.accept).toBe('text/event-stream');
    expect(events.map((event) => event.type)).toEqual(['search_results', 'content', 'content', 'metadata', 'done']);
    expect(
      events
        .filter((event) => event.type === 'content')
        .map((event) => event.delta)
        .join(''),
    ).toBe('Hello');
    expect(events[3]).toMatchObject({ type: 'metadata', metadata: { tx_id: 'ai_tx_1' } });
  });
});

describe('happy paths: tasks', () => {
  test('createTask sends the normalised request (aliases replaced) and returns the creation response', async () => {
    const created = {
      deepresearch_id: 'dr_1',
      status: 'queued',
      mode: 'fast',
      created_at: CREATED_AT,
      message: 'waiting for capacity',
      webhook_secret: 'a'.repeat(64),
    };
    const sent = serve('POST', '/v1/deepresearch/tasks', created);
    const result = await client.createTask({
      input: 'EU battery makers',
      model: 'fast',
      strategy: 'filings first',
      code_execution: true,
      webhook_url: 'https://hooks.example.com/r',
    });
    expect(only(sent, 'POST', '/v1/deepresearch/tasks').body).toEqual({
      query: 'EU battery makers',
      mode: 'fast',
      research_strategy: 'filings first',
      tools: { code_execution: true },
      webhook_url: 'https://hooks.example.com/r',
    });
    expect(result).toEqual(created);
  });

  test('getTask reads the status route', async () => {
    const sent = serve('GET', '/v1/deepresearch/tasks/dr_1/status', taskStatus);
    await expect(client.getTask('dr_1')).resolves.toEqual(taskStatus);
    expect(only(sent, 'GET', '/v1/deepresearch/tasks/dr_1/status').body).toBeUndefined();
  });

  test('task ids are encoded into the path', async () => {
    const sent = serve('GET', '/v1/deepresearch/tasks/dr%2F..%2Fx/status', taskStatus);
    await client.getTask('dr/../x');
    only(sent, 'GET', '/v1/deepresearch/tasks/dr%2F..%2Fx/status');
  });

  test('updateTask posts the instruction', async () => {
    const sent = serve('POST', '/v1/deepresearch/tasks/dr_1/update', action);
    await expect(client.updateTask('dr_1', 'Also cover Norway')).resolves.toEqual(action);
    expect(only(sent, 'POST', '/v1/deepresearch/tasks/dr_1/update').body).toEqual({ instruction: 'Also cover Norway' });
  });

  test('cancelTask posts without a body', async () => {
    const sent = serve('POST', '/v1/deepresearch/tasks/dr_1/cancel', action);
    await expect(client.cancelTask('dr_1')).resolves.toEqual(action);
    const call = only(sent, 'POST', '/v1/deepresearch/tasks/dr_1/cancel');
    expect(call.body).toBeUndefined();
    expect(call.headers['content-type']).toBeUndefined();
  });

  test('deleteTask uses DELETE on the delete route', async () => {
    const sent = serve('DELETE', '/v1/deepresearch/tasks/dr_1/delete', action);
    await expect(client.deleteTask('dr_1')).resolves.toEqual(action);
    only(sent, 'DELETE', '/v1/deepresearch/tasks/dr_1/delete');
  });

  test('setTaskPublic posts the new visibility', async () => {
    const sent = serve('POST', '/v1/deepresearch/tasks/dr_1/public', { ...action, public: true });
    await expect(client.setTaskPublic('dr_1', true)).resolves.toEqual({ ...action, public: true });
    expect(only(sent, 'POST', '/v1/deepresearch/tasks/dr_1/public').body).toEqual({ public: true });
  });

  test('respondToCheckpoint posts the interaction id and answer', async () => {
    const answer = { interaction_id: 'int_1', response: { approved: false as const, modifications: 'add pricing' } };
    const sent = serve('POST', '/v1/deepresearch/tasks/dr_1/respond', { success: true, message: 'resumed', deepresearch_id: 'dr_1', status: 'queued' });
    await expect(client.respondToCheckpoint('dr_1', answer)).resolves.toMatchObject({ success: true, status: 'queued' });
    expect(only(sent, 'POST', '/v1/deepresearch/tasks/dr_1/respond').body).toEqual(answer);
  });

  test('listTasks passes the limit and returns the tasks', async () => {
    const tasks = [
      { deepresearch_id: 'dr_2', query: 'p', status: 'completed', created_at: CREATED_AT },
      { deepresearch_id: 'dr_1', status: 'running', query: 'q', created_at: CREATED_AT },
    ];
    const sent = serve('GET', '/v1/deepresearch/list?limit=2', tasks);
    await expect(client.listTasks({ limit: 2 })).resolves.toEqual(tasks);
    only(sent, 'GET', '/v1/deepresearch/list?limit=2');
  });
});

describe('happy paths: assets', () => {
  test('getTaskAsset downloads the bytes with their content type and passes the token', async () => {
    const bytes = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0xff]);
    const sent = serve('GET', '/v1/deepresearch/tasks/dr_1/assets/asset%2F1?token=t%26k', bytes, { headers: { 'content-type': 'text/csv' } });
    const asset = await client.getTaskAsset('dr_1', 'asset/1', { token: 't&k' });
    only(sent, 'GET', '/v1/deepresearch/tasks/dr_1/assets/asset%2F1?token=t%26k');
    expect(asset.contentType).toBe('text/csv');
    expect(Buffer.from(asset.data).equals(bytes)).toBe(true);
  });

  test('downloadAsset sends the key to the service origin, by absolute URL or path', async () => {
    const absolute = serve('GET', '/v1/files/report.pdf', 'pdf-bytes', { headers: { 'content-type': 'application/pdf' } });
    const relative = serve('GET', '/v1/files/chart.png', 'png-bytes', { headers: { 'content-type': 'image/png' } });
    const pdf = await client.downloadAsset(`${ORIGIN}/v1/files/report.pdf`);
    const png = await client.downloadAsset('/files/chart.png');
    only(absolute, 'GET', '/v1/files/report.pdf');
    only(relative, 'GET', '/v1/files/chart.png');
    expect(pdf).toMatchObject({ contentType: 'application/pdf' });
    expect(Buffer.from(png.data).toString()).toBe('png-bytes');
  });

  test('downloadAsset never sends the key to another origin', async () => {
    const sent = serve('GET', '/signed/report.pdf?sig=abc', 'pdf-bytes', { origin: 'https://cdn.example.net', headers: { 'content-type': 'application/pdf' } });
    await client.downloadAsset('https://cdn.example.net/signed/report.pdf?sig=abc');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers['x-api-key']).toBeUndefined();
    expect(JSON.stringify(sent[0]!.headers)).not.toContain(API_KEY);
  });

  test('a sibling host of the service is another origin too', async () => {
    const sent = serve('GET', '/x', 'bytes', { origin: 'https://api.example.com.evil.test' });
    await client.downloadAsset('https://api.example.com.evil.test/x');
    expect(sent[0]!.headers['x-api-key']).toBeUndefined();
  });

  test('an asset error does not show the token', async () => {
    serve('GET', '/v1/deepresearch/tasks/dr_1/assets/a1?token=tok_secret', { success: false, error: 'asset not found' }, { status: 404 });
    const error = await failure(client.getTaskAsset('dr_1', 'a1', { token: 'tok_secret' }));
    expect(error).toMatchObject({ status: 404, path: '/v1/deepresearch/tasks/dr_1/assets/a1' });
    expect(JSON.stringify(error)).not.toContain('tok_secret');
  });
});

describe('happy paths: batches', () => {
  test.each([
    ['the batch itself', batch],
    ['{success, batch}', { success: true, batch }],
  ])('createBatch accepts %s as the answer', async (_form, body) => {
    const sent = serve('POST', '/v1/deepresearch/batches', body);
    await expect(client.createBatch({ name: 'scan', mode: 'fast', output_formats: ['markdown'] })).resolves.toEqual(batch);
    expect(only(sent, 'POST', '/v1/deepresearch/batches').body).toEqual({ name: 'scan', mode: 'fast', output_formats: ['markdown'] });
  });

  test('getBatch unwraps {success, batch}', async () => {
    const sent = serve('GET', '/v1/deepresearch/batches/batch_1', { success: true, batch });
    await expect(client.getBatch('batch_1')).resolves.toEqual(batch);
    only(sent, 'GET', '/v1/deepresearch/batches/batch_1');
  });

  test('listBatches returns the batches', async () => {
    const sent = serve('GET', '/v1/deepresearch/batches', { success: true, batches: [batch] });
    await expect(client.listBatches()).resolves.toEqual([batch]);
    only(sent, 'GET', '/v1/deepresearch/batches');
  });

  test('addBatchTasks posts the tasks', async () => {
    const tasks = [
      { id: 'acme', query: 'ACME battery plants' },
      { id: 'volt', query: 'Volt battery plants' },
    ];
    const body = {
      batch_id: 'batch_1',
      added: 2,
      tasks: [
        { task_id: 'acme', deepresearch_id: 'dr_a', status: 'queued' },
        { task_id: 'volt', deepresearch_id: 'dr_v', status: 'queued' },
      ],
      counts,
    };
    const sent = serve('POST', '/v1/deepresearch/batches/batch_1/tasks', body);
    await expect(client.addBatchTasks('batch_1', tasks)).resolves.toEqual(body);
    expect(only(sent, 'POST', '/v1/deepresearch/batches/batch_1/tasks').body).toEqual({ tasks });
  });

  const page = (ids: string[], lastKey: string | null, hasMore: boolean) => ({
    success: true,
    batch_id: 'batch_1',
    tasks: ids.map((id) => ({ deepresearch_id: id, task_id: `item-${id}`, query: `q ${id}`, status: 'completed', created_at: CREATED_AT })),
    pagination: { count: ids.length, last_key: lastKey, has_more: hasMore },
  });

  test('listBatchTasksPage passes the query', async () => {
    const sent = serve('GET', '/v1/deepresearch/batches/batch_1/tasks?status=completed&limit=5&include_output=true', page(['dr_1'], null, false));
    const result = await client.listBatchTasksPage('batch_1', { status: 'completed', limit: 5, include_output: true });
    only(sent, 'GET', '/v1/deepresearch/batches/batch_1/tasks?status=completed&limit=5&include_output=true');
    expect(result.tasks.map((task) => task.deepresearch_id)).toEqual(['dr_1']);
  });

  test('listBatchTasks follows last_key across three pages', async () => {
    const first = serve('GET', '/v1/deepresearch/batches/batch_1/tasks?limit=2', page(['dr_1', 'dr_2'], 'k2', true));
    const second = serve('GET', '/v1/deepresearch/batches/batch_1/tasks?limit=2&last_key=k2', page(['dr_3', 'dr_4'], 'k4', true));
    const third = serve('GET', '/v1/deepresearch/batches/batch_1/tasks?limit=2&last_key=k4', page(['dr_5'], null, false));
    const pages = await collect(client.listBatchTasks('batch_1', { limit: 2 }));
    expect(pages.map((each) => each.tasks.map((task) => task.deepresearch_id))).toEqual([['dr_1', 'dr_2'], ['dr_3', 'dr_4'], ['dr_5']]);
    expect([first, second, third].map((sent) => sent.length)).toEqual([1, 1, 1]);
  });

  test('cancelBatch posts to the cancel route', async () => {
    const sent = serve('POST', '/v1/deepresearch/batches/batch_1/cancel', { batch_id: 'batch_1', status: 'cancelled', cancelled_count: 3 });
    await expect(client.cancelBatch('batch_1')).resolves.toEqual({ batch_id: 'batch_1', status: 'cancelled', cancelled_count: 3 });
    only(sent, 'POST', '/v1/deepresearch/batches/batch_1/cancel');
  });
});

describe('happy paths: workflows and datasources', () => {
  test('listWorkflows returns the records', async () => {
    const sent = serve('GET', '/v1/workflows', { success: true, workflows: [workflow] });
    await expect(client.listWorkflows()).resolves.toEqual([workflow]);
    only(sent, 'GET', '/v1/workflows');
  });

  test.each([
    ['the record', workflow],
    ['{workflow}', { success: true, workflow }],
  ])('getWorkflow accepts %s', async (_form, body) => {
    const sent = serve('GET', '/v1/workflows/competitor-scan', body);
    await expect(client.getWorkflow('competitor-scan')).resolves.toEqual(workflow);
    only(sent, 'GET', '/v1/workflows/competitor-scan');
  });

  test('previewWorkflow posts the parameters and version pin', async () => {
    const body = {
      workflow: { slug: 'competitor-scan', version: 2 },
      resolved: { input: 'Scan ACME', mode: 'standard', output_formats: ['markdown'] },
      estimated_credits: null,
    };
    const sent = serve('POST', '/v1/workflows/competitor-scan/preview', body);
    await expect(client.previewWorkflow('competitor-scan', { workflow_params: { company: 'ACME' }, workflow_version: 2 })).resolves.toEqual(body);
    expect(only(sent, 'POST', '/v1/workflows/competitor-scan/preview').body).toEqual({ workflow_params: { company: 'ACME' }, workflow_version: 2 });
  });

  test('listWorkflowVersions returns the versions', async () => {
    const body = {
      slug: 'competitor-scan',
      versions: [{ version: 2, recommended_mode: 'standard', estimated_time: '15 min', changelog: 'pricing', created_at: CREATED_AT, is_current: true }],
    };
    const sent = serve('GET', '/v1/workflows/competitor-scan/versions', body);
    await expect(client.listWorkflowVersions('competitor-scan')).resolves.toEqual(body);
    only(sent, 'GET', '/v1/workflows/competitor-scan/versions');
  });

  test('deleteWorkflow uses DELETE and returns the deletion time', async () => {
    const sent = serve('DELETE', '/v1/workflows/my-scan', { slug: 'my-scan', deleted_at: CREATED_AT });
    await expect(client.deleteWorkflow('my-scan')).resolves.toEqual({ slug: 'my-scan', deleted_at: CREATED_AT });
    only(sent, 'DELETE', '/v1/workflows/my-scan');
  });

  test('listDatasources passes the category', async () => {
    const sent = serve('GET', '/v1/datasources?category=markets', { success: true, datasources: [datasource] });
    await expect(client.listDatasources({ category: 'markets' })).resolves.toEqual([datasource]);
    only(sent, 'GET', '/v1/datasources?category=markets');
  });

  test('listDatasources without a category sends no query', async () => {
    const sent = serve('GET', '/v1/datasources', { success: true, datasources: [] });
    await expect(client.listDatasources()).resolves.toEqual([]);
    only(sent, 'GET', '/v1/datasources');
  });

  test('listDatasourceCategories returns the categories', async () => {
    const categories = [{ id: 'markets', name: 'Markets', description: 'Prices and movers', dataset_count: 7 }];
    const sent = serve('GET', '/v1/datasources/categories', { success: true, categories });
    await expect(client.listDatasourceCategories()).resolves.toEqual(categories);
    only(sent, 'GET', '/v1/datasources/categories');
  });
});

describe('error statuses', () => {
  const statuses: Array<[number, boolean]> = [
    [400, false],
    [401, false],
    [402, false],
    [403, false],
    [404, false],
    [408, true],
    [429, true],
    [500, true],
    [502, true],
    [503, true],
    [504, true],
  ];

  test.each(statuses)('%i in the {success:false, error} form is retryable=%s', async (status, retryable) => {
    const headers = status === 429 ? { 'retry-after': '7' } : undefined;
    serve('GET', '/v1/deepresearch/tasks/dr_1/status', { success: false, error: `problem ${status}` }, { status, headers });
    const error = await failure(client.getTask('dr_1'));
    expect(error).toMatchObject({
      kind: 'http',
      status,
      retryable,
      serviceMessage: `problem ${status}`,
      method: 'GET',
      path: '/v1/deepresearch/tasks/dr_1/status',
    });
    expect(error.code).toBeUndefined();
    expect(error.retryAfterMs).toBe(status === 429 ? 7000 : undefined);
    expect(error.message).toBe(`GET /v1/deepresearch/tasks/dr_1/status failed with ${status}: problem ${status}`);
  });

  test.each(statuses)('%i in the workflow {error, message} form is retryable=%s', async (status, retryable) => {
    const headers = status === 429 ? { 'retry-after': '2' } : undefined;
    serve('DELETE', '/v1/workflows/competitor-scan', { error: 'cannot_edit_svc_workflow', message: 'curated workflows are read-only' }, { status, headers });
    const error = await failure(client.deleteWorkflow('competitor-scan'));
    expect(error).toMatchObject({ kind: 'http', status, retryable, code: 'cannot_edit_svc_workflow', serviceMessage: 'curated workflows are read-only' });
    expect(error.retryAfterMs).toBe(status === 429 ? 2000 : undefined);
  });

  test('a 404 on a workflow slug reads as not found', async () => {
    serve('GET', '/v1/workflows/nope', { error: 'workflow_not_found', message: 'No workflow matches "nope"' }, { status: 404 });
    const error = await failure(client.getWorkflow('nope'));
    expect(error).toMatchObject({ isNotFound: true, code: 'workflow_not_found' });
  });

  test('a 402 on task creation reads as credits exhausted', async () => {
    serve('POST', '/v1/deepresearch/tasks', { success: false, error: 'Insufficient credits, please top up your account' }, { status: 402 });
    const error = await failure(client.createTask({ query: 'q' }));
    expect(error).toMatchObject({ isCreditsExhausted: true, retryable: false });
  });
});

describe('schema violations', () => {
  test('an invalid request is rejected before sending, naming the field', async () => {
    serve('POST', '/v1/deepresearch/tasks', { deepresearch_id: 'dr_1', status: 'running', mode: 'fast', created_at: CREATED_AT });
    const error = await failure(client.createTask({ query: 'x'.repeat(25_001) }));
    expect(error).toMatchObject({ kind: 'invalid_request', retryable: false, issues: [{ path: 'query', message: 'is at most 25,000 characters' }] });
    expect(error.message).toBe('POST /v1/deepresearch/tasks request is invalid: query: is at most 25,000 characters');
    expect(agent.pendingInterceptors()).toHaveLength(1);
    await client.createTask({ query: 'q' });
  });

  test.each([
    ['search with an unknown field', () => client.search({ query: 'q', limit: 3 } as never), '(root)'],
    [
      'addBatchTasks with 101 tasks',
      () =>
        client.addBatchTasks(
          'b',
          Array.from({ length: 101 }, (_, index) => ({ id: `${index}`, query: 'q' })),
        ),
      'tasks',
    ],
    ['listBatchTasksPage with limit 0', () => client.listBatchTasksPage('b', { limit: 0 }), 'limit'],
    [
      'respondToCheckpoint with a half review',
      () => client.respondToCheckpoint('dr_1', { interaction_id: 'i', response: { approved: false } } as never),
      'response',
    ],
    ['createBatch with checkpoints', () => client.createBatch({ name: 'b', hitl: { plan_review: true } }), 'hitl'],
  ])('%s is rejected before sending', async (_name, call, path) => {
    const error = await failure(call());
    expect(error.kind).toBe('invalid_request');
    expect(error.issues?.[0]?.path).toBe(path);
  });

  test('an invalid answer request fails on the first read, before sending', async () => {
    const error = await failure(collect(client.answer({ query: 'q', system_instructions: 'x'.repeat(2001) })));
    expect(error).toMatchObject({ kind: 'invalid_request', path: '/v1/answer', issues: [{ path: 'system_instructions' }] });
  });

  test.each([
    ['a field of the wrong type', { ...taskStatus, progress: { current_step: 'two', total_steps: 15 } }, 'progress.current_step'],
    ['a missing field', { ...taskStatus, status: undefined }, 'status'],
    ['an unknown status', { ...taskStatus, status: 'thinking' }, 'status'],
  ])('a response with %s fails as invalid_response naming the field', async (_name, body, path) => {
    serve('GET', '/v1/deepresearch/tasks/dr_1/status', body);
    const error = await failure(client.getTask('dr_1'));
    expect(error).toMatchObject({ kind: 'invalid_response', status: 200, retryable: false });
    expect(error.issues?.map((issue) => issue.path)).toEqual([path]);
    expect(error.message).toContain(`returned an invalid response: ${path}: `);
  });

  test('a non-JSON success body fails as invalid_response', async () => {
    serve('GET', '/v1/deepresearch/tasks/dr_1/status', '<html>maintenance</html>');
    const error = await failure(client.getTask('dr_1'));
    expect(error).toMatchObject({ kind: 'invalid_response', status: 200 });
    expect(error.message).toContain('body is not JSON (starts with "<html>maintenance</html>")');
  });

  test('an empty success body fails as invalid_response', async () => {
    serve('GET', '/v1/deepresearch/batches', '');
    expect(await failure(client.listBatches())).toMatchObject({ kind: 'invalid_response', issues: [{ path: '(root)' }] });
  });

  test('a batch answer with a bad field names it in either body form', async () => {
    serve('POST', '/v1/deepresearch/batches', { success: true, batch: { ...batch, status: 'sleeping' } });
    const error = await failure(client.createBatch({ name: 'scan' }));
    expect(error.issues?.map((issue) => issue.path)).toEqual(['status']);
  });
});

describe('transport failures', () => {
  test('a network error is a retryable network failure', async () => {
    agent
      .get(ORIGIN)
      .intercept({ method: 'GET', path: '/v1/deepresearch/tasks/dr_1/status' })
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const error = await failure(client.getTask('dr_1'));
    expect(error).toMatchObject({ kind: 'network', retryable: true, causeCode: 'ECONNRESET', path: '/v1/deepresearch/tasks/dr_1/status' });
    expect(error.status).toBeUndefined();
  });

  test('a reply slower than timeoutMs is a retryable timeout', async () => {
    agent.get(ORIGIN).intercept({ method: 'GET', path: '/v1/deepresearch/tasks/dr_1/status' }).reply(200, taskStatus).delay(2_000);
    const started = Date.now();
    const error = await failure(client.getTask('dr_1', { timeoutMs: 50 }));
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
    expect(error.message).toContain('timed out');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  test('the client-wide timeoutMs applies when a call gives none', async () => {
    const impatient = new ResearchClient({ apiKey: API_KEY, baseUrl: BASE_URL, dispatcher: agent, timeoutMs: 40 });
    agent.get(ORIGIN).intercept({ method: 'GET', path: '/v1/workflows' }).reply(200, { workflows: [] }).delay(2_000);
    expect(await failure(impatient.listWorkflows())).toMatchObject({ kind: 'timeout' });
  });

  test("an AbortSignal in the options abandons the call with the caller's own reason, not a retryable error", async () => {
    agent.get(ORIGIN).intercept({ method: 'GET', path: '/v1/deepresearch/tasks/dr_1/status' }).reply(200, taskStatus).delay(2_000);
    const controller = new AbortController();
    const reason = new Error('activity cancelled');
    const started = Date.now();
    const pending = client.getTask('dr_1', { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  test('an already aborted signal fails at once', async () => {
    agent.get(ORIGIN).intercept({ method: 'GET', path: '/v1/deepresearch/tasks/dr_1/status' }).reply(200, taskStatus);
    const error = await client.getTask('dr_1', { signal: AbortSignal.abort() }).catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(ResearchApiError);
    expect(error).toMatchObject({ name: 'AbortError' });
  });

  test('calls leave no listeners on a long-lived signal', async () => {
    const controller = new AbortController();
    agent.get(ORIGIN).intercept({ method: 'GET', path: '/v1/deepresearch/tasks/dr_1/status' }).reply(200, taskStatus).times(20);
    for (let call = 0; call < 20; call++) await client.getTask('dr_1', { signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('the API key stays secret', () => {
  const views = (value: unknown) => [
    String(value),
    JSON.stringify(value),
    inspect(value),
    inspect(value, { showHidden: true, depth: Infinity }),
    inspect(value, { customInspect: false, showHidden: true, depth: Infinity }),
  ];

  test('an error body that echoes the key is scrubbed everywhere', async () => {
    serve('GET', '/v1/deepresearch/tasks/dr_1/status', { success: false, error: `invalid API key ${API_KEY}` }, { status: 401 });
    const error = await failure(client.getTask('dr_1'));
    expect(error.serviceMessage).toBe('invalid API key [REDACTED]');
    for (const view of [...views(error), error.message, String(error.stack)]) expect(view).not.toContain(API_KEY);
  });

  test('a workflow error body that echoes the key is scrubbed', async () => {
    serve('GET', '/v1/workflows/x', { error: 'forbidden', message: `key ${API_KEY} lacks inference` }, { status: 403 });
    const error = await failure(client.getWorkflow('x'));
    for (const view of views(error)) expect(view).not.toContain(API_KEY);
  });

  test('a network error that mentions the key is scrubbed, cause included', async () => {
    agent
      .get(ORIGIN)
      .intercept({ method: 'GET', path: '/v1/workflows' })
      .replyWithError(new Error(`proxy refused x-api-key: ${API_KEY}`));
    const error = await failure(client.listWorkflows());
    for (const view of [...views(error), ...views(error.cause)]) expect(view).not.toContain(API_KEY);
  });

  test('the client never shows the key', () => {
    for (const view of views(client)) expect(view).not.toContain(API_KEY);
    expect(String(client)).toBe(`ResearchClient(${BASE_URL})`);
  });

  test('invalid client options name the field without showing values', () => {
    expect(() => new ResearchClient({ apiKey: '', baseUrl: BASE_URL })).toThrow(/apiKey: is required/);
    let thrown: unknown;
    try {
      new ResearchClient({ apiKey: API_KEY, baseUrl: 'ftp://nowhere' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ResearchApiError);
    expect((thrown as ResearchApiError).issues?.[0]?.path).toBe('baseUrl');
    for (const view of views(thrown)) expect(view).not.toContain(API_KEY);
  });

  test('a trailing slash on the base URL is ignored', async () => {
    const slashed = new ResearchClient({ apiKey: API_KEY, baseUrl: `${BASE_URL}/`, dispatcher: agent });
    const sent = serve('GET', '/v1/datasources/categories', { success: true, categories: [] });
    await slashed.listDatasourceCategories();
    only(sent, 'GET', '/v1/datasources/categories');
  });
});
