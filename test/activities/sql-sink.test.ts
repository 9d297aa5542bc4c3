import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { InMemoryWebhookSecretStore, LocalArtifactStore } from '../../src/activities';
import type { ActivityDeps } from '../../src/activities/deps';
import { sqlSinkActivities } from '../../src/activities/sql-sink';
import type { ResearchClient } from '../../src/api';
import { parsePipelineDefinition } from '../../src/pipelines';
import { postgresMissing, startPostgres, type TestPostgres } from '../support/postgres';
import { storeCompletedItems, watchedStore } from '../support/watched-store';

// The run's final SQL write (`sinkPipelineRows`) reads the run's records back from the store: a few at
// a time, rows sent as they come (a 100,000-item run is never held whole), each statement to every sink.

const missing = postgresMissing();
if (missing && process.env.CI) throw new Error(`CI needs PostgreSQL for the SQL sink's test: ${missing}`);
if (missing) process.stderr.write(`skipping the SQL sink activity test: ${missing}\n`);

const definition = parsePipelineDefinition(
  `
name: headcounts
input:
  items: [a]
  key: "{{ item }}"
step:
  answer:
    query: "Headcount of {{ item }}"
budget_usd: 10
outputs:
  - postgres: { url_env: RP_SINK_URL, table: research.rows_a }
  - postgres: { url_env: RP_SINK_URL, table: research.rows_b }
`,
  'headcounts.yaml',
).definition;

(missing ? describe.skip : describe)(`sinkPipelineRows streams a run's rows to every sink (real PostgreSQL)${missing ? ` [skipped: ${missing}]` : ''}`, () => {
  let postgres: TestPostgres | undefined;
  let db: PgClient | undefined;
  let dir: string;
  beforeAll(async () => {
    postgres = await startPostgres();
    db = new PgClient({ connectionString: postgres.url });
    await db.connect();
    await db.query('CREATE SCHEMA research');
    dir = await mkdtemp(path.join(tmpdir(), 'rp-sql-sink-'));
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await postgres?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('450 records: 450 rows in each of two tables, results inlined, at most 16 records read at once', async () => {
    const local = new LocalArtifactStore(dir);
    const prefix = 'pipelines/headcounts/runs/r1';
    const keys = await storeCompletedItems(local, prefix, 450);
    const { store, counts } = watchedStore(local);
    const deps: ActivityDeps = { api: {} as ResearchClient, store, secrets: new InMemoryWebhookSecretStore(), env: { RP_SINK_URL: postgres!.url } };
    const written = await sqlSinkActivities(deps).sinkPipelineRows({ definition, runKey: 'r1', prefix });
    expect(written).toEqual({ rows: 450, tables: ['research.rows_a', 'research.rows_b'] });
    for (const table of ['research.rows_a', 'research.rows_b']) {
      const { rows } = await db!.query<{ item_key: string; step_id: string; result: { output: { headcount: number } } }>(
        `SELECT item_key, step_id, result FROM ${table} WHERE run_key = 'r1' ORDER BY item_key`,
      );
      expect(rows.map((row) => row.item_key)).toEqual(keys);
      expect(rows[321]).toMatchObject({ step_id: 'answer', result: { output: { headcount: 321 } } });
    }
    expect(counts.mostRecordReadsAtOnce).toBeGreaterThan(1);
    expect(counts.mostRecordReadsAtOnce).toBeLessThanOrEqual(16);
    // Written again (a retry), the rows are the same rows: upserts, no duplicates.
    await sqlSinkActivities(deps).sinkPipelineRows({ definition, runKey: 'r1', prefix });
    const { rows } = await db!.query<{ count: string }>(`SELECT count(*) FROM research.rows_b WHERE run_key = 'r1'`);
    expect(Number(rows[0]!.count)).toBe(450);
  }, 60_000);
});
