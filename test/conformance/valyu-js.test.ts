/**
 * The official JS client (valyu-js, pinned in package.json) drives the emulator through every one of its
 * methods. The client turns every failure into `{ success: false, error }`, so each test asserts what a
 * user relies on, not only that nothing threw. A method the emulator cannot honour fails here.
 */
import { Valyu, verifyContentsWebhookSignature, type Interaction } from 'valyu-js';
import { signWebhook } from '../../src/api/webhooks';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';

// Fast enough that a fast task (3 emulator minutes) ends in tens of milliseconds of real time, so the
// client's own polling loops (`wait`, `stream`, `waitForCompletion`, `waitForJob`) finish quickly.
const SPEED = 20_000;
const QUERY = 'Lithium-ion battery recycling capacity in Europe';

let emulator: RunningEmulator;
let valyu: Valyu;

beforeAll(async () => {
  emulator = await startEmulator({ seed: 7, speed: SPEED, streamDelayMs: 1 });
  valyu = new Valyu(emulator.defaultApiKey, emulator.url);
});

afterAll(async () => {
  await emulator.close();
});

/** The value, or a failure naming what the client reported instead. */
function ok<T extends { success: boolean; error?: string | null }>(response: T): T {
  if (!response.success) throw new Error(`valyu-js reported failure: ${response.error ?? '(no error text)'}`);
  return response;
}

/** Polls the task until `done` holds (emulator time runs fast; real time is short). */
async function until(taskId: string, done: (status: Awaited<ReturnType<Valyu['deepresearch']['status']>>) => boolean) {
  for (let attempt = 0; attempt < 400; attempt++) {
    const status = ok(await valyu.deepresearch.status(taskId));
    if (done(status)) return status;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`task ${taskId} never reached the expected state`);
}

async function createTask(options: Parameters<Valyu['deepresearch']['create']>[0]): Promise<string> {
  const created = ok(await valyu.deepresearch.create(options));
  expect(created.deepresearch_id).toEqual(expect.any(String));
  return created.deepresearch_id!;
}

describe('valyu-js against the emulator: search, contents, answer', () => {
  test('search: ranked results with content, prices and both result counts, with every option the client sends', async () => {
    const response = await valyu.search(QUERY, {
      searchType: 'all',
      maxNumResults: 5,
      relevanceThreshold: 0.3,
      category: 'research',
      historicalCache: false,
      urlOnly: false,
      instructions: 'Prefer primary sources',
      countryCode: 'GB',
      responseLength: 'short',
      startDate: '2020-01-01',
    });
    expect(response.success).toBe(true);
    expect(response.results.length).toBeGreaterThan(0);
    expect(response.results_by_source).toEqual(expect.objectContaining({ web: expect.any(Number), proprietary: expect.any(Number) }));
    for (const result of response.results)
      expect(result).toMatchObject({ title: expect.any(String), url: expect.any(String), price: expect.any(Number), length: expect.any(Number) });
  });

  test('search: a market dataset answers with structured rows', async () => {
    const response = ok(await valyu.search('ACMR daily prices', { includedSources: ['svc/svc-stocks'] }));
    const market = response.results.find((result) => result.source === 'svc/svc-stocks');
    expect(market?.data_type).toBe('structured');
    expect(market?.content).toEqual(expect.arrayContaining([expect.objectContaining({ symbol: 'ACMR' })]));
  });

  test('contents: each URL has a status; a failed one carries its error and no content', async () => {
    const response = await valyu.contents(['https://example.org/battery-recycling', 'https://down.invalid/page'], {
      summary: true,
      extractEffort: 'high',
      responseLength: 'medium',
      screenshot: false,
    });
    expect(response.success).toBe(true);
    const results = 'results' in response ? (response.results ?? []) : [];
    expect(results.map((result) => result.status)).toEqual(['success', 'failed']);
    expect(results[0]).toMatchObject({ status: 'success', content: expect.any(String), source: 'web', length: expect.any(Number) });
    expect(results[1]).toEqual({ url: 'https://down.invalid/page', status: 'failed', error: expect.any(String) });
  });

  test('getContentsJob: an async job is answered 202 and then readable by its id', async () => {
    const urls = Array.from({ length: 12 }, (_, index) => `https://example.org/page-${index}`);
    const started = await valyu.contents(urls, { async: true });
    expect(started).toMatchObject({ success: true, jobId: expect.any(String), status: 'pending', urlsTotal: 12 });
    const job = await valyu.getContentsJob((started as { jobId: string }).jobId);
    expect(job).toMatchObject({ success: true, urlsTotal: 12, status: expect.stringMatching(/^(pending|processing|completed)$/) });
  });

  test('getContentsJob and waitForJob with an unknown id: a failure naming the job, no job invented', async () => {
    const missing = await valyu.getContentsJob('cj_0000000000000000');
    expect(missing).toMatchObject({ success: false, jobId: 'cj_0000000000000000', status: 'failed', error: 'Job cj_0000000000000000 not found' });
    await expect(valyu.waitForJob('cj_0000000000000000', { pollInterval: 10, maxWaitTime: 1_000 })).rejects.toThrow('Job cj_0000000000000000 not found');
  });

  test("getContentsJob: another organisation's job is not readable", async () => {
    const accounts = [
      { key: 'rk_conformance_owner_0001', organization: 'org-owner', creditsUsd: 10 },
      { key: 'rk_conformance_other_0001', organization: 'org-other', creditsUsd: 10 },
    ];
    const shared = await startEmulator({ seed: 8, speed: SPEED, accounts });
    try {
      const owner = new Valyu(accounts[0]!.key, shared.url);
      const started = (await owner.contents(['https://example.org/a'], { async: true })) as { jobId: string };
      expect(ok(await owner.getContentsJob(started.jobId)).jobId).toBe(started.jobId);
      const other = await new Valyu(accounts[1]!.key, shared.url).getContentsJob(started.jobId);
      expect(other).toMatchObject({ success: false, error: `Job ${started.jobId} not found` });
    } finally {
      await shared.close();
    }
  });

  test('waitForJob: the job ends with every result', async () => {
    const urls = Array.from({ length: 11 }, (_, index) => `https://example.org/doc-${index}`);
    const started = await valyu.contents(urls, { async: true });
    const done = await valyu.waitForJob((started as { jobId: string }).jobId, { pollInterval: 20, maxWaitTime: 30_000 });
    expect(done).toMatchObject({ status: 'completed', urlsProcessed: 11, urlsFailed: 0 });
    expect(done.results).toHaveLength(11);
  });

  test('answer: the collected answer has text, sources and cost; the stream yields every event kind', async () => {
    const answer = await valyu.answer('What limits lithium battery recycling?', { searchType: 'web', dataMaxPrice: 1, fastMode: true });
    expect(answer).toMatchObject({ success: true, contents: expect.any(String), cost: { total_deduction_dollars: expect.any(Number) } });
    expect((answer as { contents: string }).contents.length).toBeGreaterThan(0);
    // Both clients' AnswerSearchResult require `length` (valyu-py refuses a result without it).
    const sources = (answer as { search_results: { length: number; source: string; price?: number }[] }).search_results;
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect(source).toMatchObject({ length: expect.any(Number), source: expect.any(String), price: expect.any(Number) });
    const stream = await valyu.answer('What limits lithium battery recycling?', { streaming: true });
    const kinds = new Set<string>();
    for await (const chunk of stream as AsyncGenerator<{ type: string }>) kinds.add(chunk.type);
    expect([...kinds].sort()).toEqual(['content', 'done', 'metadata', 'search_results']);
  });

  test('verifyContentsWebhookSignature accepts our signature scheme', () => {
    const secret = 'b'.repeat(64);
    const body = JSON.stringify({ job_id: 'cj_1', status: 'completed' });
    const signed = signWebhook({ secret, body, timestamp: 1_735_689_600 });
    expect(verifyContentsWebhookSignature(body, signed.headers['X-Webhook-Signature'], signed.headers['X-Webhook-Timestamp'], secret)).toBe(true);
    expect(verifyContentsWebhookSignature(`${body} `, signed.headers['X-Webhook-Signature'], signed.headers['X-Webhook-Timestamp'], secret)).toBe(false);
  });
});

describe('valyu-js against the emulator: deepresearch', () => {
  test('create: a task starts (or queues) with its id, mode and metadata echoed', async () => {
    const created = ok(
      await valyu.deepresearch.create({
        query: QUERY,
        mode: 'fast',
        metadata: { item: 'conformance' },
        tools: { charts: { enabled: true, max_calls: 3 } },
        brandCollectionId: 'brand_1',
      }),
    );
    expect(created).toMatchObject({
      deepresearch_id: expect.any(String),
      status: expect.stringMatching(/^(running|queued)$/),
      mode: 'fast',
      metadata: { item: 'conformance' },
    });
  });

  test('create: a workflow run resolves the template (no query sent)', async () => {
    const created = ok(await valyu.deepresearch.create({ workflowId: 'company-profile', workflowParams: { company: 'Acme Robotics' }, workflowVersion: 1 }));
    expect(created.deepresearch_id).toEqual(expect.any(String));
  });

  test('status: the task reports its query, status and mode', async () => {
    const id = await createTask({ query: QUERY, mode: 'fast' });
    const status = ok(await valyu.deepresearch.status(id));
    expect(status).toMatchObject({ deepresearch_id: id, query: QUERY, mode: 'fast', status: expect.any(String) });
  });

  test('wait: a completed task has its report, images with image_id, deliverables with request, and its cost', async () => {
    const id = await createTask({
      query: QUERY,
      mode: 'fast',
      tools: { charts: true },
      deliverables: ['A CSV table of recycling plants'],
      outputFormats: ['markdown', 'pdf'],
    });
    const done = await valyu.deepresearch.wait(id, { pollInterval: 10, maxWaitTime: 60_000 });
    expect(done).toMatchObject({
      status: 'completed',
      output: expect.any(String),
      cost: expect.any(Number),
      cost_breakdown: { task: 0.1 },
      pdf_url: expect.any(String),
    });
    expect(done.images?.[0]).toMatchObject({
      image_id: expect.any(String),
      image_type: 'chart',
      image_url: expect.any(String),
      created_at: expect.any(Number),
    });
    expect(done.deliverables?.[0]).toMatchObject({
      request: 'A CSV table of recycling plants',
      type: 'csv',
      status: 'completed',
      url: expect.any(String),
      created_at: expect.any(Number),
    });
  });

  test('stream: progress then completion are reported through the callbacks', async () => {
    const id = await createTask({ query: QUERY, mode: 'fast' });
    await until(id, (status) => status.status === 'completed');
    const completed: string[] = [];
    const errors: Error[] = [];
    await valyu.deepresearch.stream(id, { onComplete: (result) => completed.push(result.status ?? ''), onError: (error) => errors.push(error) });
    expect(errors).toEqual([]);
    expect(completed).toEqual(['completed']);
  });

  test('list: recent tasks come back as an array with query, status and created_at', async () => {
    const id = await createTask({ query: `${QUERY} (listed)`, mode: 'fast' });
    const listed = ok(await valyu.deepresearch.list({ limit: 5 }));
    expect(Array.isArray(listed.data)).toBe(true);
    expect(listed.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ deepresearch_id: id, query: `${QUERY} (listed)`, status: expect.any(String), created_at: expect.any(Number) }),
      ]),
    );
  });

  test('update: a running task takes a follow-up instruction', async () => {
    const id = await createTask({ query: QUERY, mode: 'max' });
    await until(id, (status) => status.status === 'running');
    expect(ok(await valyu.deepresearch.update(id, 'Include Asian plants too'))).toMatchObject({ deepresearch_id: id, message: expect.any(String) });
  });

  test('cancel: a running task is cancelled', async () => {
    const id = await createTask({ query: QUERY, mode: 'max' });
    expect(ok(await valyu.deepresearch.cancel(id))).toMatchObject({ deepresearch_id: id });
    expect((await valyu.deepresearch.status(id)).status).toBe('cancelled');
  });

  test('delete: a cancelled task is deleted and then unknown', async () => {
    const id = await createTask({ query: QUERY, mode: 'max' });
    ok(await valyu.deepresearch.cancel(id));
    expect(ok(await valyu.deepresearch.delete(id))).toMatchObject({ deepresearch_id: id });
    expect((await valyu.deepresearch.status(id)).success).toBe(false);
  });

  test('togglePublic: the new visibility is reported', async () => {
    const id = await createTask({ query: QUERY, mode: 'fast' });
    expect(ok(await valyu.deepresearch.togglePublic(id, true))).toMatchObject({ deepresearch_id: id, public: true });
  });

  test('getAssets: an image is fetched by its image_id, with the key or with the link token', async () => {
    const id = await createTask({ query: QUERY, mode: 'fast', tools: { charts: true } });
    const done = await until(id, (status) => status.status === 'completed');
    const image = done.images?.[0];
    expect(image?.image_id).toEqual(expect.any(String));
    const asset = ok(await valyu.deepresearch.getAssets(id, image!.image_id));
    expect(asset.contentType).toBe('image/png');
    expect(asset.data?.subarray(1, 4).toString('latin1')).toBe('PNG');
    const token = new URL(image!.image_url).searchParams.get('token') ?? '';
    expect(ok(await valyu.deepresearch.getAssets(id, image!.image_id, { token })).data?.length).toBe(asset.data?.length);
    // Deliverables name their asset id `id`; images repeat theirs under that name, so either reads the file.
    const byId = ok(await valyu.deepresearch.getAssets(id, (image as { id?: string }).id ?? 'missing-id'));
    expect(byId.data?.equals(asset.data!)).toBe(true);
  });

  /** Creates a task with every checkpoint and answers each with the helper given for its type. */
  async function answerEachCheckpoint(
    answer: Record<Interaction['type'], (taskId: string, interaction: Interaction) => Promise<{ success: boolean; error?: string }>>,
  ) {
    const id = await createTask({ query: QUERY, mode: 'fast', hitl: { planningQuestions: true, planReview: true, sourceReview: true, outlineReview: true } });
    const answered: string[] = [];
    for (const type of ['planning_questions', 'plan_review', 'source_review', 'outline_review'] as const) {
      const status = await until(id, (current) => (current.status === 'awaiting_input' || current.status === 'paused') && current.interaction?.type === type);
      ok(await answer[type](id, status.interaction!));
      answered.push(type);
    }
    const done = await until(id, (status) => status.status === 'completed');
    expect(done.hitl_history?.map((entry) => [entry.type, entry.auto_continued])).toEqual(answered.map((type) => [type, false]));
  }

  test('respondPlanningQuestions, approvePlan, respondSourceReview, approveOutline: each checkpoint is answered and the task completes', async () => {
    await answerEachCheckpoint({
      planning_questions: (id, interaction) =>
        valyu.deepresearch.respondPlanningQuestions(
          id,
          interaction.interaction_id,
          questionsOf(interaction).map((question) => ({ question, answer: 'Europe only' })),
        ),
      plan_review: (id, interaction) => valyu.deepresearch.approvePlan(id, interaction.interaction_id),
      source_review: (id, interaction) =>
        valyu.deepresearch.respondSourceReview(id, interaction.interaction_id, { includedDomains: ['europa.eu'], excludedDomains: [] }),
      outline_review: (id, interaction) => valyu.deepresearch.approveOutline(id, interaction.interaction_id, 'Add a section on costs'),
    });
  });

  test('respond: the generic form answers any checkpoint', async () => {
    await answerEachCheckpoint({
      planning_questions: (id, interaction) =>
        valyu.deepresearch.respond(id, interaction.interaction_id, { answers: questionsOf(interaction).map((question) => ({ question, answer: 'yes' })) }),
      plan_review: (id, interaction) => valyu.deepresearch.respond(id, interaction.interaction_id, { approved: true }),
      source_review: (id, interaction) =>
        valyu.deepresearch.respond(id, interaction.interaction_id, { included_domains: [], excluded_domains: ['example.com'] }),
      outline_review: (id, interaction) => valyu.deepresearch.respond(id, interaction.interaction_id, { approved: true }),
    });
  });
});

function questionsOf(interaction: Interaction): string[] {
  const questions = (interaction.data as { questions?: unknown }).questions;
  if (!Array.isArray(questions)) throw new Error(`planning_questions data has no questions: ${JSON.stringify(interaction.data)}`);
  return questions.map((question) => (typeof question === 'string' ? question : String((question as { question?: unknown }).question)));
}

describe('valyu-js against the emulator: batches', () => {
  test('create (with the model alias), status, addTasks, listTasks, list and waitForCompletion', async () => {
    const created = ok(await valyu.batch.create({ name: 'conformance', model: 'fast', metadata: { run: 'c1' }, search: { searchType: 'web' } }));
    expect(created).toMatchObject({ batch_id: expect.stringMatching(/^batch_/), status: 'open', mode: 'fast', counts: { total: 0 } });
    const batchId = created.batch_id!;

    const added = ok(
      await valyu.batch.addTasks(batchId, {
        tasks: [
          { id: 'plant-1', query: `${QUERY} (1)` },
          { query: `${QUERY} (2)`, researchStrategy: 'Use filings' },
        ],
      }),
    );
    expect(added).toMatchObject({ batch_id: batchId, added: 2, counts: { total: 2 } });
    expect(added.tasks?.map((task) => task.task_id)).toEqual(['plant-1', undefined]);

    const status = ok(await valyu.batch.status(batchId));
    expect(status.batch).toMatchObject({ batch_id: batchId, status: expect.stringMatching(/^(processing|completed)$/), counts: { total: 2 } });

    const page = ok(await valyu.batch.listTasks(batchId, { limit: 1 }));
    expect(page.tasks?.[0]).toMatchObject({ task_id: 'plant-1', query: `${QUERY} (1)`, deepresearch_id: expect.any(String) });
    expect(page.pagination).toMatchObject({ count: 1, has_more: true, last_key: expect.any(String) });

    const listed = ok(await valyu.batch.list({ limit: 10 }));
    expect(listed.batches?.map((batch) => batch.batch_id)).toContain(batchId);

    const finished = await valyu.batch.waitForCompletion(batchId, { pollInterval: 10, maxWaitTime: 60_000 });
    expect(finished).toMatchObject({ batch_id: batchId, status: 'completed', counts: { completed: 2 } });
    const withOutput = ok(await valyu.batch.listTasks(batchId, { includeOutput: true, status: 'completed' }));
    expect(withOutput.tasks?.every((task) => typeof task.output === 'string')).toBe(true);
  });

  test('cancel: a processing batch is cancelled with the count of tasks stopped', async () => {
    const batchId = ok(await valyu.batch.create({ mode: 'max' })).batch_id!;
    ok(await valyu.batch.addTasks(batchId, { tasks: [{ query: `${QUERY} (a)` }, { query: `${QUERY} (b)` }] }));
    expect(ok(await valyu.batch.cancel(batchId))).toMatchObject({ batch_id: batchId, status: 'cancelled', cancelled_count: 2 });
  });
});

describe('valyu-js against the emulator: datasources and workflows', () => {
  test('datasources.list: the catalogue, filterable by category, with array modality and numeric size', async () => {
    const all = ok(await valyu.datasources.list());
    expect(all.datasources).toHaveLength(50);
    for (const datasource of all.datasources ?? []) expect(Array.isArray(datasource.modality)).toBe(true);
    const markets = ok(await valyu.datasources.list({ category: 'markets' }));
    expect(markets.datasources?.every((datasource) => datasource.category === 'markets')).toBe(true);
    expect(markets.datasources?.some((datasource) => typeof datasource.size === 'number')).toBe(true);
  });

  test('datasources.categories: the ten categories with counts', async () => {
    const categories = ok(await valyu.datasources.categories());
    expect(categories.categories).toHaveLength(10);
    expect(categories.categories?.reduce((sum, category) => sum + category.dataset_count, 0)).toBe(50);
  });

  test('workflows.list: filters by scope, vertical, q, tags and limit', async () => {
    const curated = ok(await valyu.workflows.list({ scope: 'valyu' }));
    expect(curated.workflows?.length).toBeGreaterThan(0);
    expect(curated.workflows?.every((workflow) => workflow.is_valyu === true)).toBe(true);
    const found = ok(await valyu.workflows.list({ q: 'literature', tags: ['academic'], vertical: 'research', limit: 5, expand: true }));
    expect(found.workflows?.map((workflow) => workflow.slug)).toEqual(['literature-review']);
    expect(found.workflows?.[0]?.prompt).toEqual(expect.any(String));
  });

  test('workflows.get: the current version, or the one pinned with version', async () => {
    expect(ok(await valyu.workflows.get('company-profile')).workflow).toMatchObject({ slug: 'company-profile', version: 2, title: 'Company profile' });
    expect(ok(await valyu.workflows.get('company-profile', 1)).workflow).toMatchObject({ slug: 'company-profile', version: 1 });
  });

  test('workflows.versions: every version, one current', async () => {
    const versions = ok(await valyu.workflows.versions('company-profile'));
    expect(versions.versions?.filter((version) => version.is_current).map((version) => version.version)).toEqual([2]);
  });

  test('workflows.create, update, preview and delete: an organisation workflow from first version to deletion', async () => {
    const created = ok(
      await valyu.workflows.create({
        slug: 'plant-census',
        title: 'Plant census',
        tags: ['batteries'],
        vertical: 'industry',
        version: {
          prompt: 'List battery recycling plants in {{region}}.',
          strategy: 'Use registries.',
          report_format: 'A table.',
          variables: [{ key: 'region', type: 'text', required: true }],
        },
      }),
    );
    expect(created.workflow).toMatchObject({ slug: 'plant-census', version: 1, title: 'Plant census', is_valyu: false });

    const updated = ok(
      await valyu.workflows.update('plant-census', {
        title: 'Plant census (EU)',
        version: {
          prompt: 'List plants in {{region}} with capacity.',
          strategy: '',
          report_format: '',
          changelog: 'Capacity column',
          variables: [{ key: 'region', type: 'text' }],
        },
      }),
    );
    expect(updated.workflow).toMatchObject({ slug: 'plant-census', version: 2, title: 'Plant census (EU)', changelog: 'Capacity column' });

    const preview = ok(await valyu.workflows.preview('plant-census', { workflowParams: { region: 'Europe' } }));
    expect(preview).toMatchObject({ workflow: { slug: 'plant-census', version: 2 }, resolved: { input: 'List plants in Europe with capacity.' } });
    // Preview parameters are optional: a workflow whose variables are all optional resolves without them.
    expect(ok(await valyu.workflows.preview('plant-census')).resolved?.input).toBe('List plants in with capacity.');
    // Without parameters a preview shows the template: required variables stay as placeholders...
    const template = ok(await valyu.workflows.preview('company-profile'));
    expect(template.resolved?.input).toContain('{{company}}');
    // ...while parameters given are checked in full: a missing required one is named.
    expect(await valyu.workflows.preview('company-profile', { workflowParams: {} })).toMatchObject({
      success: false,
      error: expect.stringContaining('company'),
    });

    const deleted = ok(await valyu.workflows.delete('plant-census'));
    expect(deleted).toMatchObject({ slug: 'plant-census', deleted_at: expect.any(String) });
    expect((await valyu.workflows.get('plant-census')).success).toBe(false);
  });
});
