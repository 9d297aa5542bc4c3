import { Client as PgClient } from 'pg';
import type { PipelineRunResult, PipelineRunState } from '../../src/domain/pipeline-types';
import { pausePipelineSignal, pipelineRunStateQuery, raiseBudgetUpdate, resumePipelineSignal } from '../../src/workflows/definitions';
import { postgresMissing, startPostgres, type TestPostgres } from '../support/postgres';
import { describeScenarios, recordHistory } from '../support/scenario-env';
import { companies, pipelineInput } from './pipeline-world';
import { makeWorld, replaceActivity, researchSetup, type ResearchWorld } from './world';

// A `steps:` pipeline with a SQL sink: one row per item and step. One item at a time, and a budget that
// holds the run after a few items, so the test can look at the table while the run waits.
const enrichment = (name: string, budgetUsd: number) => `
name: ${name}
input:
  items:
${companies(6)}
  key: "{{ item.domain | slug }}"
steps:
  - id: profile
    answer:
      query: "Headcount of {{ item.name }}"
      data_max_price: 0.05
  - id: news
    search:
      query: "{{ item.name }} news"
      max_num_results: 3
      max_price: 1
      response_length: 200
concurrency: 1
start_rate_per_second: 50
budget_usd: ${budgetUsd}
outputs:
  - format: jsonl
  - postgres: { url_env: RP_TEST_DATABASE_URL, table: research.live_rows }
`;

// One step, many items: records (and rows) go in chunks while the run goes, and while it is paused.
const headcounts = (name: string) => `
name: ${name}
input:
  items:
${companies(60)}
  key: "{{ item.domain | slug }}"
step:
  answer:
    query: "Headcount of {{ item.name }}"
    data_max_price: 0.05
concurrency: 4
start_rate_per_second: 4
budget_usd: 50
outputs:
  - format: jsonl
  - postgres: { url_env: RP_TEST_DATABASE_URL, table: research.live_rows }
`;

interface Row {
  item_key: string;
  step_id: string;
  status: string;
  cost_usd: string;
}

const missing = postgresMissing();
if (missing && process.env.CI) throw new Error(`CI needs PostgreSQL for the SQL sink's test: ${missing}`);
if (missing) process.stderr.write(`skipping the SQL sink rows scenario: ${missing}\n`);

(missing ? describe.skip : describe)(`the SQL sink writes rows as items settle (real PostgreSQL)${missing ? ` [skipped: ${missing}]` : ''}`, () => {
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

  /** The rows of a run; none before the sink's first write has made the table. */
  const rowsOf = async (pipeline: string, runKey: string): Promise<Row[]> => {
    try {
      const { rows } = await db!.query<Row>(
        'SELECT item_key, step_id, status, cost_usd FROM research.live_rows WHERE pipeline = $1 AND run_key = $2 ORDER BY item_key, step_id',
        [pipeline, runKey],
      );
      return rows;
    } catch (error) {
      if ((error as { code?: string }).code === '42P01') return [];
      throw error;
    }
  };

  describeScenarios('through a pipeline run', researchSetup, (getEnv) => {
    let world: ResearchWorld | undefined;
    afterEach(async () => {
      await world?.close();
      world = undefined;
    });

    it('has the rows of settled items in the table while the run waits for budget; one row per item and step when it ends, a retried write included', async () => {
      const env = getEnv();
      world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 }, deps: { env: { RP_TEST_DATABASE_URL: postgres!.url } } });
      // The first write of a chunk's rows loses its answer after the rows went in: Temporal tries it again.
      let chunkWrites = 0;
      replaceActivity('sinkPipelineItemRows', (original) => async (input) => {
        const written = await original(input);
        if (++chunkWrites === 1) throw new Error('connection reset after the upsert');
        return written;
      });
      const input = await pipelineInput(enrichment('live', 0.7), world, { runKey: 'live-1' });
      const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/live/live-1', args: [input] });
      let held: PipelineRunState | undefined;
      await env.waitUntil(
        async () => {
          held = await handle.query<PipelineRunState>(pipelineRunStateQuery);
          return held.phase === 'waiting_for_budget' && held.counts.running === 0;
        },
        { timeoutMs: 3_600_000, description: 'the run held by its budget' },
      );
      const settled = held!.counts.completed;
      expect(settled).toBeGreaterThan(0);
      expect(settled).toBeLessThan(6);
      // While the run waits, the rows of what settled are there already: two steps an item.
      await env.waitUntil(async () => (await rowsOf('live', 'live-1')).length === settled * 2, {
        timeoutMs: 3_600_000,
        description: `the rows of ${settled} settled item(s) in the table`,
      });
      const early = await rowsOf('live', 'live-1');
      expect(early.every((row) => row.status === 'completed')).toBe(true);
      expect(new Set(early.map((row) => row.step_id))).toEqual(new Set(['profile', 'news']));
      // Its retry (the first answer was lost) upserts the same rows again: still one per item and step.
      await env.waitUntil(() => chunkWrites >= 2, { timeoutMs: 3_600_000, description: 'the chunk write tried again' });
      expect(await rowsOf('live', 'live-1')).toEqual(early);
      expect((await handle.query<PipelineRunState>(pipelineRunStateQuery)).phase).toBe('waiting_for_budget');
      process.stderr.write(`sql sink: ${early.length} rows in the table while the run waited for budget (${settled} items settled)\n`);

      await handle.executeUpdate(raiseBudgetUpdate, { addUsd: 5 });
      const result = await handle.result();
      expect(result.counts).toMatchObject({ completed: 6, failed: 0 });
      const rows = await rowsOf('live', 'live-1');
      expect(rows).toHaveLength(12);
      expect(new Set(rows.map((row) => `${row.item_key}/${row.step_id}`)).size).toBe(12);
      // The rows' money is what the service charged (its own count).
      const total = rows.reduce((sum, row) => sum + Number(row.cost_usd), 0);
      expect(total).toBeCloseTo(world.emulator.stats.snapshot().chargedUsd, 6);
      expect(total).toBeCloseTo(result.ledger.spentUsd, 6);
      await recordHistory(handle, 'pipeline-sql-sink-rows');
    });

    it('writes rows in chunks as the run goes, and those of items that settle while it is paused before it is resumed', async () => {
      const env = getEnv();
      world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 }, deps: { env: { RP_TEST_DATABASE_URL: postgres!.url } } });
      const writes: number[] = [];
      replaceActivity('sinkPipelineItemRows', (original) => async (input) => {
        writes.push(input.items.length);
        return original(input);
      });
      const input = await pipelineInput(headcounts('chunks'), world, { runKey: 'chunks-1' });
      const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/chunks/chunks-1', args: [input] });
      // A chunk of records (25) is written, with its rows, while items still start.
      await env.waitUntil(async () => (await rowsOf('chunks', 'chunks-1')).length >= 25, { timeoutMs: 3_600_000, description: 'a first chunk of rows' });
      await handle.signal(pausePipelineSignal);
      let paused: PipelineRunState | undefined;
      await env.waitUntil(
        async () => {
          paused = await handle.query<PipelineRunState>(pipelineRunStateQuery);
          return paused.phase === 'paused' && paused.counts.running === 0;
        },
        { timeoutMs: 3_600_000, description: 'the paused run with nothing in flight' },
      );
      const settled = paused!.counts.completed;
      expect(settled).toBeLessThan(60);
      await env.waitUntil(async () => (await rowsOf('chunks', 'chunks-1')).length === settled, {
        timeoutMs: 3_600_000,
        description: `the rows of the ${settled} items settled before the pause`,
      });
      process.stderr.write(`sql sink: ${settled} rows in the table while the run was paused\n`);
      await handle.signal(resumePipelineSignal);
      const result = await handle.result();
      expect(result.counts).toMatchObject({ completed: 60 });
      const rows = await rowsOf('chunks', 'chunks-1');
      expect(rows).toHaveLength(60);
      expect(new Set(rows.map((row) => row.step_id))).toEqual(new Set(['answer']));
      expect(new Set(rows.map((row) => row.item_key)).size).toBe(60);
      // Every item's rows went in as the run went (the final write then upserts them all once more).
      expect(writes.reduce((sum, items) => sum + items, 0)).toBe(60);
      process.stderr.write(`sql sink: chunk writes of ${writes.join(', ')} items; ${await handle.historyLength()} history events\n`);
    });

    it("writes each item's rows once as the run goes, across continue-as-new", async () => {
      const env = getEnv();
      world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 }, deps: { env: { RP_TEST_DATABASE_URL: postgres!.url } } });
      const writes: number[] = [];
      replaceActivity('sinkPipelineItemRows', (original) => async (input) => {
        writes.push(input.items.length);
        return original(input);
      });
      const input = await pipelineInput(headcounts('chained'), world, { runKey: 'chained-1', continueAsNewAfterEvents: 150 });
      const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/chained/chained-1', args: [input] });
      const result = await handle.result();
      expect(result.counts).toMatchObject({ completed: 60 });
      expect(await handle.runCount()).toBeGreaterThan(1);
      const rows = await rowsOf('chained', 'chained-1');
      expect(new Set(rows.map((row) => row.item_key)).size).toBe(60);
      expect(rows).toHaveLength(60);
      expect(writes.reduce((sum, items) => sum + items, 0)).toBe(60);
      process.stderr.write(`sql sink: ${await handle.runCount()} executions, chunk writes of ${writes.join(', ')} items\n`);
    });

    it("a worker without the sink's variable tries one chunk, notes it once, and leaves the rows to the final write (which notes it too)", async () => {
      const env = getEnv();
      world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 }, deps: { env: {} } });
      const writes: number[] = [];
      replaceActivity('sinkPipelineItemRows', (original) => async (input) => {
        writes.push(input.items.length);
        return original(input);
      });
      const input = await pipelineInput(headcounts('unset'), world, { runKey: 'unset-1' });
      const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/unset/unset-1', args: [input] });
      const result = await handle.result();
      expect(result.counts).toMatchObject({ completed: 60 });
      // Refused without retry, and no chunk after it.
      expect(writes).toHaveLength(1);
      const notes = (await handle.query<PipelineRunState>(pipelineRunStateQuery)).rejectedMessages;
      expect(notes.filter((note) => note.startsWith('SQL rows of'))).toEqual([expect.stringContaining('RP_TEST_DATABASE_URL')]);
      expect(notes.filter((note) => note.startsWith('SQL sink not written'))).toEqual([expect.stringContaining('RP_TEST_DATABASE_URL')]);
    });

    it('a chunk write that fails for good is noted and neither fails nor holds the run; the final write brings every row', async () => {
      const env = getEnv();
      world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 }, deps: { env: { RP_TEST_DATABASE_URL: postgres!.url } } });
      let chunkWrites = 0;
      replaceActivity('sinkPipelineItemRows', () => async () => {
        chunkWrites++;
        throw new Error('the database refused the connection');
      });
      const input = await pipelineInput(enrichment('down', 0.7), world, { runKey: 'down-1' });
      const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/down/down-1', args: [input] });
      await env.waitUntil(async () => (await handle.query<PipelineRunState>(pipelineRunStateQuery)).phase === 'waiting_for_budget', {
        timeoutMs: 3_600_000,
        description: 'the run held by its budget',
      });
      await env.waitUntil(
        async () => (await handle.query<PipelineRunState>(pipelineRunStateQuery)).rejectedMessages.some((note) => note.startsWith('SQL rows of')),
        { timeoutMs: 3_600_000, description: 'the failed chunk write noted' },
      );
      expect(await rowsOf('down', 'down-1')).toEqual([]);
      await handle.executeUpdate(raiseBudgetUpdate, { addUsd: 5 });
      const result = await handle.result();
      expect(result.counts).toMatchObject({ completed: 6 });
      expect(chunkWrites).toBeGreaterThanOrEqual(3);
      const state = await handle.query<PipelineRunState>(pipelineRunStateQuery);
      expect(state.rejectedMessages.find((note) => note.startsWith('SQL rows of'))).toMatch(/final write covers them.*refused the connection/);
      const rows = await rowsOf('down', 'down-1');
      expect(rows).toHaveLength(12);
      expect(rows.every((row) => row.status === 'completed')).toBe(true);
    });
  });
});
