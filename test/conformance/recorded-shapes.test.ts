/**
 * Our ResearchClient reads bodies shaped as the official clients describe the real service, and still
 * rejects malformed ones naming the field. The bodies are in ./fixtures/recorded.ts.
 */
import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { ResearchApiError, ResearchClient } from '../../src/api';
import * as recorded from './fixtures/recorded';

const ORIGIN = 'https://api.example.com';
let agent: MockAgent;
let client: ResearchClient;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  client = new ResearchClient({ apiKey: 'rk_test_key', baseUrl: `${ORIGIN}/v1`, dispatcher: agent });
});

afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await client.close();
  await agent.close();
});

/** Answers one call with `body` and returns what the client sent. */
function serve(method: string, path: string, body: unknown, status = 200): { sent?: unknown } {
  const seen: { sent?: unknown } = {};
  agent
    .get(ORIGIN)
    .intercept({ method, path })
    .reply((request) => {
      seen.sent = typeof request.body === 'string' ? JSON.parse(request.body) : undefined;
      return { statusCode: status, data: JSON.stringify(body), responseOptions: { headers: { 'content-type': 'application/json' } } };
    });
  return seen;
}

async function failure(promise: Promise<unknown>): Promise<ResearchApiError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof ResearchApiError)) throw new Error(`expected a ResearchApiError, got ${inspect(outcome)}`);
  return outcome;
}

const BATCH = `/v1/deepresearch/batches/${recorded.batch.batch_id}`;

describe("bodies in the official clients' shapes", () => {
  test('GET /batches/{id} is the batch itself; the older { batch } wrapper reads the same', async () => {
    serve('GET', BATCH, recorded.batch);
    serve('GET', BATCH, { success: true, batch: recorded.batch });
    const bare = await client.getBatch(recorded.batch.batch_id);
    expect(bare).toMatchObject({ batch_id: recorded.batch.batch_id, status: 'processing', counts: { total: 2 }, search_params: { search_type: 'all' } });
    expect(await client.getBatch(recorded.batch.batch_id)).toEqual(bare);
  });

  test('GET /batches is a bare array', async () => {
    serve('GET', '/v1/deepresearch/batches', [recorded.batch]);
    expect((await client.listBatches()).map((batch) => batch.batch_id)).toEqual([recorded.batch.batch_id]);
  });

  test('GET /list is a bare array without metadata; created_at as a number or ISO text reads as ISO text', async () => {
    serve('GET', '/v1/deepresearch/list?limit=2', recorded.taskList);
    const tasks = await client.listTasks({ limit: 2 });
    expect(tasks.map((task) => [task.deepresearch_id, task.created_at])).toEqual([
      ['dr_2', '2025-03-01T10:01:00.000Z'],
      ['dr_1', '2025-03-01T10:00:00.000Z'],
    ]);
  });

  test('a batch page names the caller id task_id and carries no success key', async () => {
    serve('GET', `${BATCH}/tasks?include_output=true`, recorded.batchTasksPage);
    const page = await client.listBatchTasksPage(recorded.batch.batch_id, { include_output: true });
    expect(page.tasks.map((task) => task.task_id)).toEqual(['plant-1', undefined]);
    expect(page.pagination).toEqual({ count: 2, last_key: 'dr_b', has_more: true });
  });

  test('add and cancel answers without success keys; a task added without id has no task_id', async () => {
    const add = serve('POST', `${BATCH}/tasks`, recorded.addedTasks);
    serve('POST', `${BATCH}/cancel`, recorded.cancelledBatch);
    const added = await client.addBatchTasks(recorded.batch.batch_id, [{ id: 'plant-1', query: 'Plant 1' }, { query: 'Plant 2' }]);
    expect(add.sent).toEqual({ tasks: [{ id: 'plant-1', query: 'Plant 1' }, { query: 'Plant 2' }] });
    expect(added.tasks.map((task) => task.task_id)).toEqual(['plant-1', undefined]);
    expect(await client.cancelBatch(recorded.batch.batch_id)).toMatchObject({ status: 'cancelled', cancelled_count: 1 });
  });

  test("task actions: the spec's bodies with success and older valyu-py bodies without it both read as done", async () => {
    const withSuccess = { success: true, message: 'Task cancelled', deepresearch_id: 'dr_1' };
    const withoutSuccess = { message: 'Task deleted', deepresearch_id: 'dr_1' };
    serve('POST', '/v1/deepresearch/tasks/dr_1/cancel', withSuccess);
    serve('DELETE', '/v1/deepresearch/tasks/dr_1/delete', withoutSuccess);
    serve('POST', '/v1/deepresearch/tasks/dr_1/update', { deepresearch_id: 'dr_1' });
    serve('POST', '/v1/deepresearch/tasks/dr_1/public', { deepresearch_id: 'dr_1', public: true });
    expect(await client.cancelTask('dr_1')).toMatchObject({ success: true, message: 'Task cancelled' });
    expect(await client.deleteTask('dr_1')).toMatchObject({ success: true, message: 'Task deleted' });
    expect(await client.updateTask('dr_1', 'Add a table')).toMatchObject({ success: true, message: '', deepresearch_id: 'dr_1' });
    expect(await client.setTaskPublic('dr_1', true)).toMatchObject({ success: true, public: true });
  });

  test('a task action the service refused in a 200 body stays refused', async () => {
    serve('POST', '/v1/deepresearch/tasks/dr_1/cancel', { success: false, message: 'Task already completed', deepresearch_id: 'dr_1' });
    expect(await client.cancelTask('dr_1')).toMatchObject({ success: false, message: 'Task already completed' });
  });

  test('batch create sends the model alias as mode', async () => {
    const create = serve('POST', '/v1/deepresearch/batches', { ...recorded.batch, status: 'open' });
    await client.createBatch({ name: 'weekly', model: 'fast' });
    expect(create.sent).toEqual({ name: 'weekly', mode: 'fast' });
  });

  test('a completed task: images, deliverables, cost_breakdown, hitl_history, tool configs; lite reads as standard', async () => {
    serve('GET', '/v1/deepresearch/tasks/dr_1/status', recorded.completedTask);
    const task = await client.getTask('dr_1');
    expect(task.mode).toBe('standard');
    expect(task.images?.[0]).toMatchObject({ image_id: 'img_1', image_type: 'chart', image_url: expect.any(String), created_at: expect.any(Number) });
    expect(task.deliverables?.[0]).toMatchObject({ request: 'CSV of plants', created_at: expect.any(Number), status: 'completed' });
    expect(task.cost_breakdown).toEqual({ task: 0.5, screenshots: 0.1 });
    expect(task.hitl_history?.[0]).toMatchObject({ auto_continued: false });
    expect(task.tools?.screenshots).toEqual({ enabled: true, max_calls: 3 });
  });

  test('task creation sends tool configs and brand_collection_id', async () => {
    const create = serve('POST', '/v1/deepresearch/tasks', { deepresearch_id: 'dr_1', status: 'queued', mode: 'fast', created_at: '2025-03-01T10:00:00Z' });
    await client.createTask({
      query: 'q',
      mode: 'fast',
      tools: { charts: { enabled: true, max_calls: 2 }, code_execution: true },
      brand_collection_id: 'brand_1',
    });
    expect(create.sent).toMatchObject({ tools: { charts: { enabled: true, max_calls: 2 }, code_execution: true }, brand_collection_id: 'brand_1' });
  });

  test('contents: status-keyed results; a result without status (Python type) reads as a success', async () => {
    serve('POST', '/v1/contents', recorded.contents);
    serve('POST', '/v1/contents', recorded.contentsWithoutStatus);
    const both = await client.contents({ urls: ['https://a.example', 'https://b.invalid'] });
    expect(both.results.map((result) => result.status)).toEqual(['success', 'failed']);
    expect((await client.contents({ urls: ['https://a.example'] })).results[0]).toMatchObject({ status: 'success', content: 42 });
  });

  test('contents jobs: the 202 answer and the job read', async () => {
    const start = serve('POST', '/v1/contents', recorded.contentsJobCreated, 202);
    serve('GET', '/v1/contents/jobs/cj_1', recorded.contentsJob);
    const urls = Array.from({ length: 12 }, (_, index) => `https://example.org/${index}`);
    expect(await client.startContentsJob({ urls })).toMatchObject({ job_id: 'cj_1', status: 'pending' });
    expect(start.sent).toEqual({ urls, async: true });
    expect(await client.getContentsJob('cj_1')).toMatchObject({
      status: 'partial',
      results: [expect.objectContaining({ status: 'success' }), expect.objectContaining({ status: 'failed' })],
    });
  });

  test("search: content as text, object or array; image_url an object; the clients' request fields are sent", async () => {
    const sent = serve('POST', '/v1/search', recorded.search);
    const response = await client.search({
      query: 'ACMR',
      category: 'markets',
      url_only: true,
      historical_cache: true,
      historical_cache_strict: 'prefer',
      instructions: 'prices only',
      start_date: '2025-03-01T09:00:00Z',
    });
    expect(response.results.map((result) => (Array.isArray(result.content) ? 'array' : typeof result.content))).toEqual(['string', 'object', 'array']);
    expect(response.results[0]?.image_url).toEqual({ main: 'https://w.example/i.png' });
    expect(sent.sent).toMatchObject({ category: 'markets', url_only: true, historical_cache: true, instructions: 'prices only' });
  });

  test('workflows: get returns the record; list carries total and verticals', async () => {
    serve('GET', '/v1/workflows/plant-census', recorded.workflow);
    serve('GET', '/v1/workflows', recorded.workflowList);
    expect(await client.getWorkflow('plant-census')).toMatchObject({ slug: 'plant-census', version: 2, variables: [{ key: 'region' }] });
    expect(await client.listWorkflows()).toHaveLength(1);
  });

  test('datasources: modality an array, size a number, a type', async () => {
    serve('GET', '/v1/datasources', { success: true, datasources: [recorded.datasource] });
    expect(await client.listDatasources()).toEqual([recorded.datasource]);
  });
});

describe('malformed bodies are still refused, naming the field', () => {
  test.each([
    ['an unknown task status', () => ({ ...recorded.completedTask, status: 'done' }), 'status'],
    ['a cost breakdown that is not money', () => ({ ...recorded.completedTask, cost_breakdown: { task: '0.5' } }), 'cost_breakdown.task'],
    [
      'an image without its id',
      () => ({ ...recorded.completedTask, images: [{ ...recorded.completedTask.images[0], image_id: undefined }] }),
      'images[0].image_id',
    ],
    [
      'a deliverable with an unknown status',
      () => ({ ...recorded.completedTask, deliverables: [{ ...recorded.completedTask.deliverables[0], status: 'ready' }] }),
      'deliverables[0].status',
    ],
    ['a tool setting that is neither', () => ({ ...recorded.completedTask, tools: { charts: 'yes' } }), 'tools.charts'],
  ])('a task with %s', async (_name, body, path) => {
    serve('GET', '/v1/deepresearch/tasks/dr_1/status', body());
    const error = await failure(client.getTask('dr_1'));
    expect(error).toMatchObject({ kind: 'invalid_response' });
    expect(error.issues?.map((issue) => issue.path)).toEqual([path]);
  });

  test('a list item whose created_at is not a time', async () => {
    serve('GET', '/v1/deepresearch/list', [{ ...recorded.taskList[0], created_at: 'yesterday' }]);
    const error = await failure(client.listTasks());
    expect(error.issues?.map((issue) => issue.path)).toEqual(['[0].created_at']);
  });

  test('a batch without counts', async () => {
    serve('GET', BATCH, { ...recorded.batch, counts: undefined });
    expect((await failure(client.getBatch(recorded.batch.batch_id))).issues?.map((issue) => issue.path)).toEqual(['counts']);
  });

  test('a failed contents result without its error', async () => {
    serve('POST', '/v1/contents', { ...recorded.contents, results: [{ url: 'https://b.invalid', status: 'failed' }] });
    expect((await failure(client.contents({ urls: ['https://b.invalid'] }))).issues?.map((issue) => issue.path)).toEqual(['results[0].error']);
  });

  test('a search result whose content is a number', async () => {
    serve('POST', '/v1/search', { ...recorded.search, results: [{ ...recorded.search.results[0], content: 7 }] });
    expect((await failure(client.search({ query: 'ACMR' }))).issues?.map((issue) => issue.path)).toEqual(['results[0].content']);
  });

  test('a request the service would refuse is refused before sending, naming the field', async () => {
    const error = await failure(client.createTask({ query: 'q', tools: { charts: { enabled: true, max_calls: -1 } } }));
    expect(error).toMatchObject({ kind: 'invalid_request', issues: [{ path: 'tools.charts.max_calls' }] });
  });
});
