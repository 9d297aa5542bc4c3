import path from 'node:path';
import { request } from 'undici';
import { InMemoryWebhookSecretStore } from '../../src/activities';
import type { Intake } from '../../src/intake';
import { raiseBudgetUpdate } from '../../src/workflows/definitions';
import type { PipelineRunResult } from '../../src/domain/pipeline-types';
import { planReviewedAcme } from '../support/pipeline-runs';
import { describeScenarios } from '../support/scenario-env';
import { listenOnLoopback, pipelinesFolder, scenarioIntake } from '../support/scenario-intake';
import { notifySecret, startReceiver } from '../support/notify-receiver';
import { postgresMissing, startPostgres, type TestPostgres } from '../support/postgres';
import { Client as PgClient } from 'pg';
import { createActivities } from '../../src/activities';
import { pipelineRunPrefix } from '../../src/domain/ids';
import { companies, pipelineInput } from './pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from './world';
import { cancelledRun } from '../support/cancelled';

const TOKEN = 'app-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };

const scan = (name: string, receiver: string) => `
name: ${name}
input:
  items:
${companies(4)}
  key: "{{ item.domain | slug }}"
step:
  deepresearch:
    query: "Profile {{ item.name }}"
    mode: fast
concurrency: 4
start_rate_per_second: 50
budget_usd: 0.25
notify: ["${receiver}/from-definition"]
`;

/** The parts of the intake's JSON answers the test reads. */
interface Answer {
  workflowId?: string;
  links?: Record<string, string>;
  outputs?: { files: Array<{ name: string; url: string }> };
  items?: Array<{ key: string; status: string; files?: Array<{ name: string; url: string }> }>;
  next?: string;
}

async function call(method: 'GET' | 'POST', url: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await request(url, {
    method,
    headers: { ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, text, json: json as Answer, headers: response.headers };
}

describeScenarios('delivery: notifications and results over HTTP through a real intake', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  let intake: Intake | undefined;
  afterEach(async () => {
    await intake?.app.close();
    await world?.close();
    intake = world = undefined;
  });

  it("signs and retries run events to the definition's and the trigger's receivers, and serves items and outputs by link", async () => {
    const env = getEnv();
    const secret = notifySecret();
    // The first delivery is refused: its retry must carry the same webhook-id.
    const receiver = await startReceiver(secret, { failFirst: 1 });
    try {
      const name = 'scan';
      const secrets = new InMemoryWebhookSecretStore();
      const intakeKey = 'k'.repeat(32);
      // The world (its emulator's clock, the worker's store) is made after the intake, whose URL it needs.
      const late: { clock?: () => number; store?: ResearchWorld['store'] } = {};
      intake = await scenarioIntake(
        env,
        { secrets, intakeKey },
        {
          tokens: [TOKEN],
          pipelinesDir: await pipelinesFolder({ [name]: scan(name, receiver.url) }),
          now: () => (late.clock ? late.clock() : Date.now()),
          results: {
            get: (key) => late.store!.get(key),
            list: (prefix) => late.store!.list(prefix),
            keys: (prefix) => late.store!.keys(prefix),
            stat: (key) => late.store!.stat(key),
          },
        },
      );
      const intakeUrl = await listenOnLoopback(intake);
      world = await makeWorld(env, {
        secrets,
        intakeKey,
        emulator: { defaultCreditsUsd: 100 },
        deps: { notifySecret: secret, webhookBaseUrl: intakeUrl, intakeKey },
      });
      const running = world;
      late.clock = () => running.emulator.clock.now();
      late.store = world.store;

      // The trigger's own receivers: callback_url must be HTTPS or loopback, and is checked before anything starts.
      const refused = await call('POST', `${intakeUrl}/pipelines/${name}/runs`, { callback_url: 'http://example.com/hook' }, { 'idempotency-key': 'd-0' });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('HTTPS');
      const started = await call('POST', `${intakeUrl}/pipelines/${name}/runs`, { callback_url: `${receiver.url}/from-trigger` }, { 'idempotency-key': 'd-1' });
      expect(started.status).toBe(201);
      const handle = env.getHandle<PipelineRunResult>(started.json.workflowId!);

      await env.waitUntil(() => receiver.accepted('run.waiting_for_budget').length === 2, {
        timeoutMs: 3_600_000,
        description: 'both receivers told of the budget wait',
      });
      const waits = receiver.accepted('run.waiting_for_budget');
      expect(waits.map((delivery) => delivery.path).sort()).toEqual(['/from-definition', '/from-trigger']);
      expect(waits[0]!.event!.data).toMatchObject({ pipeline: name, runKey: 'd-1', phase: 'waiting_for_budget', counts: { completed: 2 } });
      expect(String(waits[0]!.event!.data.detail)).toContain('raiseBudget');
      // The refused first delivery came again with the same id (a receiver dedupes on it), signed afresh.
      const refusedDelivery = receiver.deliveries.find((delivery) => delivery.status === 503)!;
      const retried = receiver.deliveries.filter(
        (delivery) => delivery.path === refusedDelivery.path && delivery.headers['webhook-id'] === refusedDelivery.headers['webhook-id'],
      );
      expect(retried.map((delivery) => delivery.status)).toEqual([503, 204]);
      // One event, one id, whichever receiver hears it.
      expect(new Set(waits.map((delivery) => delivery.headers['webhook-id'])).size).toBe(1);

      await handle.executeUpdate(raiseBudgetUpdate, { addUsd: 0.2 });
      const result = await handle.result();
      expect(result.counts).toMatchObject({ completed: 4 });
      await env.waitUntil(() => receiver.accepted('run.completed').length === 2, { timeoutMs: 600_000, description: 'both receivers told of the end' });
      const done = receiver.accepted('run.completed')[0]!.event!;
      expect(done.data).toMatchObject({ pipeline: name, runKey: 'd-1', phase: 'completed', counts: { completed: 4 }, ledger: { spentUsd: 0.4 } });
      expect(done.data.links).toEqual({
        status: `${intakeUrl}/pipelines/${name}/runs/d-1`,
        items: `${intakeUrl}/pipelines/${name}/runs/d-1/items`,
        outputs: `${intakeUrl}/pipelines/${name}/runs/d-1/outputs`,
      });
      // Every delivery checked out with the package a receiver uses; ids differ between events.
      expect(receiver.deliveries.every((delivery) => delivery.verified)).toBe(true);
      const ids = new Set(
        receiver
          .accepted('run.completed')
          .concat(waits)
          .map((delivery) => delivery.headers['webhook-id']),
      );
      expect(ids.size).toBe(2); // the budget wait, the end
      // A wrong secret does not verify: the signature is real.
      const { Webhook } = await import('standardwebhooks');
      const sample = receiver.accepted('run.completed')[0]!;
      expect(() => new Webhook(notifySecret()).verify(sample.body, sample.headers as Record<string, string>)).toThrow();
      // The secret never reaches history.
      expect(await handle.payloadsContain(secret.slice('whsec_'.length))).toBe(false);

      // Results over HTTP: status links, items paged, output files served with the same token.
      const status = await call('GET', `${intakeUrl}/pipelines/${name}/runs/d-1`);
      expect(status.status).toBe(200);
      expect(status.json.links).toEqual({ items: `/pipelines/${name}/runs/d-1/items`, outputs: `/pipelines/${name}/runs/d-1/outputs` });
      expect(JSON.stringify(status.json)).not.toContain('file://');
      const files = status.json.outputs!.files;
      expect(files.map((file) => file.name)).toContain('results.jsonl');
      const first = await call('GET', `${intakeUrl}/pipelines/${name}/runs/d-1/items?limit=3`);
      expect(first.status).toBe(200);
      expect(first.json.items).toHaveLength(3);
      expect(first.json.items![0]).toMatchObject({ status: 'completed', key: 'company-1-example' });
      const report = first.json.items![0]!.files!.find((file) => file.name.endsWith('.md'));
      expect(report).toBeDefined();
      const reportBody = await call('GET', `${intakeUrl}${report!.url}`);
      expect(reportBody.status).toBe(200);
      expect(reportBody.text.length).toBeGreaterThan(20);
      const second = await call('GET', `${intakeUrl}${first.json.next!}`);
      expect(second.json.items!.map((item) => item.key)).toEqual(['company-4-example']);
      expect(second.json.next).toBeUndefined();
      const jsonl = await call('GET', `${intakeUrl}${files.find((file) => file.name === 'results.jsonl')!.url}`);
      expect(jsonl.status).toBe(200);
      expect(jsonl.headers['content-type']).toContain('json');
      expect(jsonl.text.trim().split('\n')).toHaveLength(4);
      // Same auth as the triggers; no path leaves the outputs folder.
      expect((await call('GET', `${intakeUrl}/pipelines/${name}/runs/d-1/items`, undefined, { authorization: 'Bearer nope-nope-nope-nope' })).status).toBe(401);
      expect((await call('GET', `${intakeUrl}/pipelines/${name}/runs/d-1/outputs/..%2F..%2Fitems%2Fcompany-1-example.json`)).status).toBe(400);
      expect((await call('GET', `${intakeUrl}/pipelines/${name}/runs/none/items`)).status).toBe(404);
    } finally {
      await receiver.close();
    }
  });
});

describeScenarios('delivery: a run waiting for a person', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('tells its receivers which items wait at a checkpoint, and that it was cancelled', async () => {
    const env = getEnv();
    const secret = notifySecret();
    const receiver = await startReceiver(secret);
    try {
      world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 }, deps: { notifySecret: secret } });
      const input = await pipelineInput(planReviewedAcme('reviewed', `notify: ["${receiver.url}/hook"]\n`), world, { runKey: 'person-1' });
      const run = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/reviewed/person-1', args: [input] });
      await env.waitUntil(() => receiver.accepted('run.waiting_for_person').length === 1, { timeoutMs: 3_600_000, description: 'the plan review told' });
      expect(receiver.accepted('run.waiting_for_person')[0]!.event!.data).toMatchObject({ waiting: { checkpoint: ['acme'], operator: [] } });
      await run.cancel();
      // A run cancelled by request ends Canceled; its state keeps the counts.
      expect((await cancelledRun(run)).counts).toMatchObject({ cancelled: 1 });
      await env.waitUntil(() => receiver.accepted('run.cancelled').length === 1, { timeoutMs: 600_000, description: 'the cancel told' });
      expect(receiver.accepted('run.waiting_for_person')).toHaveLength(1);
      expect(receiver.deliveries.every((delivery) => delivery.verified)).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});

const answers = (name: string) => `
name: ${name}
input:
  items: [Acme, Globex, Initech]
  key: "{{ item | slug }}"
step:
  answer:
    query: "Headcount of {{ item }}"
concurrency: 3
start_rate_per_second: 50
budget_usd: 5
outputs:
  - format: jsonl
  - postgres: { url_env: RP_TEST_DATABASE_URL, table: research.enrichment }
`;

const missing = postgresMissing();
if (missing && process.env.CI) throw new Error(`CI needs PostgreSQL for the SQL sink's test: ${missing}`);
if (missing) process.stderr.write(`skipping the SQL sink scenario: ${missing}\n`);

(missing ? describe.skip : describe)('delivery: the SQL sink on a real PostgreSQL', () => {
  let postgres: TestPostgres | undefined;
  let db: PgClient | undefined;
  beforeAll(async () => {
    postgres = await startPostgres();
    db = new PgClient({ connectionString: postgres.url });
    await db.connect();
    await db.query('CREATE SCHEMA research');
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await postgres?.close();
  });

  describeScenarios('through a real intake', researchSetup, (getEnv) => {
    let world: ResearchWorld | undefined;
    let intake: Intake | undefined;
    afterEach(async () => {
      await intake?.app.close();
      await world?.close();
      intake = world = undefined;
    });

    it('upserts one row per item and step when the run writes its outputs, the same rows again on a retry', async () => {
      const env = getEnv();
      world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 }, deps: { env: { RP_TEST_DATABASE_URL: postgres!.url } } });
      const dir = await pipelinesFolder({ enrich: answers('enrich') });
      intake = await scenarioIntake(env, { secrets: world.secrets, intakeKey: 'k'.repeat(32) }, { tokens: [TOKEN], pipelinesDir: dir });
      const intakeUrl = await listenOnLoopback(intake);
      const started = await call('POST', `${intakeUrl}/pipelines/enrich/runs`, {}, { 'idempotency-key': 'sink-1' });
      expect(started.status).toBe(201);
      const result = await env.getHandle<PipelineRunResult>(started.json.workflowId!).result();
      expect(result.counts).toMatchObject({ completed: 3 });
      const read = async () =>
        (
          await db!.query<{ item_key: string; step_id: string; status: string; cost_usd: string; result: { output?: unknown }; updated_at: Date }>(
            'SELECT item_key, step_id, status, cost_usd, result, updated_at FROM research.enrichment WHERE pipeline = $1 AND run_key = $2 ORDER BY item_key',
            ['enrich', 'sink-1'],
          )
        ).rows;
      const rows = await read();
      expect(rows.map((row) => [row.item_key, row.step_id, row.status])).toEqual([
        ['acme', 'answer', 'completed'],
        ['globex', 'answer', 'completed'],
        ['initech', 'answer', 'completed'],
      ]);
      expect(rows.every((row) => row.result.output !== undefined)).toBe(true);
      // The rows' money is what the service charged (its own count), to the micro-dollar.
      const { chargedUsd } = world.emulator.stats.snapshot();
      const total = rows.reduce((sum, row) => sum + Number(row.cost_usd), 0);
      expect(total).toBeGreaterThan(0);
      expect(total).toBeCloseTo(chargedUsd, 6);
      expect(total).toBeCloseTo(result.ledger.spentUsd, 6);
      process.stderr.write(`sql sink: ${rows.length} rows, ${total} USD, the emulator charged ${chargedUsd} USD\n`);
      // A retry of the activity (or a resumed run) writes the same rows: upserted, never doubled.
      const activities = createActivities({
        api: world.api,
        store: world.store,
        secrets: world.secrets,
        env: { RP_TEST_DATABASE_URL: postgres!.url },
      });
      const { parsePipelineDefinition } = await import('../../src/pipelines');
      const { definition } = parsePipelineDefinition(answers('enrich'), path.join(dir, 'enrich.yaml'));
      await expect(activities.sinkPipelineRows({ definition, runKey: 'sink-1', prefix: pipelineRunPrefix('enrich', 'sink-1') })).resolves.toEqual({
        rows: 3,
        tables: ['research.enrichment'],
      });
      const again = await read();
      expect(again.map(({ updated_at: _at, ...row }) => row)).toEqual(rows.map(({ updated_at: _at, ...row }) => row));
      expect((await db!.query('SELECT count(*)::int AS n FROM research.enrichment')).rows[0]).toEqual({ n: 3 });
      // A worker without the variable refuses with its name, and no retry.
      const bare = createActivities({ api: world.api, store: world.store, secrets: world.secrets, env: {} });
      await expect(bare.sinkPipelineRows({ definition, runKey: 'sink-1', prefix: pipelineRunPrefix('enrich', 'sink-1') })).rejects.toThrow(
        /RP_TEST_DATABASE_URL/,
      );
    });
  });
});
