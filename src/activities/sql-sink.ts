import { ApplicationFailure } from '@temporalio/common';
import { Client, escapeIdentifier } from 'pg';
import type { ArtifactRef } from '../domain/artifacts';
import { FailureType } from '../domain/failures';
import type { PipelineItemRecord } from '../domain/pipeline-types';
import type { PostgresSink } from '../pipelines/delivery-schema';
import { rowStepId } from '../pipelines/step-kind';
import type { PipelineDefinition } from '../pipelines/types';
import { heartbeat } from './context';
import type { ActivityDeps } from './deps';
import { itemRecordKey, readJsonIfStored, recordedItemKeys } from './pipeline-items';
import { readAhead } from '../shared/read-ahead';
import { readJson } from './pipeline-item-views';
import type { ArtifactStore } from './store';

/** `sinkPipelineRows` input: the run, and the sinks of its definition. */
export interface SinkPipelineRowsInput {
  definition: PipelineDefinition;
  runKey: string;
  /** The run's store folder (`pipelineRunPrefix`). */
  prefix: string;
}

/**
 * `sinkPipelineItemRows` input: the rows of some items of a run, whose records were just written. It
 * names the run and its sinks only (not the whole definition), as its input sits in history once per chunk.
 */
export interface SinkItemRowsInput {
  pipeline: string;
  runKey: string;
  /** The run's store folder (`pipelineRunPrefix`). */
  prefix: string;
  /** The step id of a one-step definition's rows (its step kind). */
  oneStepId: string;
  sinks: PostgresSink[];
  /** The items whose rows are written (their records are in the store). */
  items: string[];
}

/** What `sinkPipelineRows` wrote, per sink. */
export interface SinkPipelineRowsResult {
  rows: number;
  tables: string[];
}

/** One row of a sink: an item's step. */
export interface SinkRow {
  pipeline: string;
  runKey: string;
  itemKey: string;
  stepId: string;
  status: string;
  costUsd: number;
  attempts: number | null;
  error: string | null;
  result: unknown;
}

/** Rows sent in one statement: a few hundred keeps a statement well under PostgreSQL's 65,535 parameters. */
const ROWS_PER_STATEMENT = 200;
/** Reports larger than this go to the row as a reference, not inline. */
const INLINE_REPORT_BYTES = 1024 * 1024;

/** A table name as SQL: each part quoted (`research.results` -> `"research"."results"`). */
export function quotedTable(table: string): string {
  return table.split('.').map(escapeIdentifier).join('.');
}

/** The table a sink creates when it is missing: one row per item and step, keyed by run. */
export function createTableSql(table: string): string {
  return `CREATE TABLE IF NOT EXISTS ${quotedTable(table)} (
  pipeline text NOT NULL,
  run_key text NOT NULL,
  item_key text NOT NULL,
  step_id text NOT NULL,
  status text NOT NULL,
  cost_usd numeric(14, 6) NOT NULL DEFAULT 0,
  attempts integer,
  error text,
  result jsonb,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (pipeline, run_key, item_key, step_id)
)`;
}

/** One statement upserting `rows`: a retry, or a resumed run, writes the same rows again and changes nothing twice. */
export function upsertSql(table: string, rows: readonly SinkRow[]): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const tuples = rows.map((row) => {
    const at = values.length;
    values.push(row.pipeline, row.runKey, row.itemKey, row.stepId, row.status, row.costUsd, row.attempts, row.error, JSON.stringify(row.result ?? null));
    return `(${Array.from({ length: 9 }, (_, index) => `$${at + index + 1}${index === 8 ? '::jsonb' : ''}`).join(', ')})`;
  });
  return {
    text: `INSERT INTO ${quotedTable(table)} (pipeline, run_key, item_key, step_id, status, cost_usd, attempts, error, result)
VALUES ${tuples.join(',\n  ')}
ON CONFLICT (pipeline, run_key, item_key, step_id) DO UPDATE SET
  status = EXCLUDED.status, cost_usd = EXCLUDED.cost_usd, attempts = EXCLUDED.attempts, error = EXCLUDED.error,
  result = EXCLUDED.result, updated_at = now()`,
    values,
  };
}

/** One step of a record as a row's fields: what the record says of it, with its stored result read back. */
interface StepView {
  id: string;
  status: string;
  costUsd: number;
  attempts?: number;
  error?: string;
  result?: ArtifactRef;
  outputs?: PipelineItemRecord['outputs'];
}

/**
 * The steps of an item's record: its per-step records when it has them (a definition with `steps:`),
 * else one step named by the definition's step kind.
 */
export function stepsOf(record: PipelineItemRecord & { steps?: unknown; stepId?: string }, oneStepId: string): StepView[] {
  const steps = record.steps;
  const one = (id: string, value: Record<string, unknown>): StepView => ({
    id,
    status: typeof value.status === 'string' ? value.status : record.status,
    costUsd: typeof value.costUsd === 'number' ? value.costUsd : 0,
    ...(typeof value.attempts === 'number' ? { attempts: value.attempts } : {}),
    ...(typeof value.error === 'string' ? { error: value.error } : {}),
    ...(value.result && typeof value.result === 'object' ? { result: value.result as ArtifactRef } : {}),
    ...(value.outputs && typeof value.outputs === 'object' ? { outputs: value.outputs as PipelineItemRecord['outputs'] } : {}),
  });
  if (Array.isArray(steps))
    return steps.flatMap((step: unknown, index) =>
      step && typeof step === 'object' ? [one(String((step as { id?: unknown }).id ?? index), step as Record<string, unknown>)] : [],
    );
  if (steps && typeof steps === 'object')
    return Object.entries(steps as Record<string, unknown>).flatMap(([id, step]) =>
      step && typeof step === 'object' ? [one(id, step as Record<string, unknown>)] : [],
    );
  return [one(record.stepId ?? oneStepId, record as unknown as Record<string, unknown>)];
}

/** A step's result as JSON for the row: the stored result of a call, or a research task's report and outputs. */
async function resultOf(store: ArtifactStore, step: StepView): Promise<unknown> {
  if (step.result) return readJson(store, step.result.key);
  if (!step.outputs) return null;
  const { report, ...outputs } = step.outputs;
  const text = report && report.bytes <= INLINE_REPORT_BYTES ? Buffer.from(await store.get(report.key)).toString('utf8') : undefined;
  return { ...outputs, ...(text !== undefined ? { report: text } : report ? { reportKey: report.key } : {}) };
}

/** The rows of one item's record: one per step. */
async function rowsOf(store: ArtifactStore, run: { pipeline: string; runKey: string }, record: PipelineItemRecord, oneStepId: string): Promise<SinkRow[]> {
  const rows: SinkRow[] = [];
  for (const step of stepsOf(record, oneStepId)) {
    rows.push({
      pipeline: run.pipeline,
      runKey: run.runKey,
      itemKey: record.key,
      stepId: step.id,
      status: step.status,
      costUsd: step.costUsd,
      attempts: step.attempts ?? null,
      error: step.error ?? null,
      result: await resultOf(store, step),
    });
  }
  return rows;
}

/** Item records read at once while rows are made and sent: the store's latency overlaps, memory stays bounded. */
const RECORDS_READ_AHEAD = 16;

/**
 * The rows of a run: one per item and step, from the records in the store, item by item in key order.
 * Records are read RECORDS_READ_AHEAD at a time and rows are yielded as they come, so a run of 100,000
 * items is never held whole.
 */
export async function* sinkRows(store: ArtifactStore, input: SinkPipelineRowsInput): AsyncGenerator<SinkRow> {
  const oneStepId = rowStepId(input.definition);
  const run = { pipeline: input.definition.name, runKey: input.runKey };
  const rowsOfItems = readAhead(await recordedItemKeys(store, input.prefix), RECORDS_READ_AHEAD, async (key) =>
    rowsOf(store, run, (await readJson(store, itemRecordKey(input.prefix, key))) as PipelineItemRecord, oneStepId),
  );
  for await (const [, rows] of rowsOfItems) yield* rows;
}

/** The rows of the named items of a run, from their records in the store (an item without a record has none yet). */
export async function itemRows(store: ArtifactStore, input: SinkItemRowsInput): Promise<SinkRow[]> {
  const rows: SinkRow[] = [];
  for (const key of new Set(input.items)) {
    const record = (await readJsonIfStored(store, itemRecordKey(input.prefix, key))) as PipelineItemRecord | undefined;
    if (record) rows.push(...(await rowsOf(store, input, record, input.oneStepId)));
  }
  return rows;
}

/** The connection URL of each sink, from the worker's environment; a missing variable is refused by name, without retry. */
function sinkUrls(sinks: readonly PostgresSink[], env: Readonly<Record<string, string | undefined>>): string[] {
  return sinks.map((sink) => {
    const url = env[sink.url_env];
    if (!url)
      throw ApplicationFailure.create({
        type: FailureType.DeliveryNotConfigured,
        nonRetryable: true,
        message: `the postgres output names ${sink.url_env}, which the worker's environment does not set (a postgres:// URL)`,
      });
    return url;
  });
}

/**
 * Upserts `rows` into each sink's table (created when missing), a few hundred rows a statement sent to
 * every sink in turn, heartbeating between statements; returns how many rows were sent.
 */
async function upsertRows(sinks: readonly PostgresSink[], urls: readonly string[], rows: Iterable<SinkRow> | AsyncIterable<SinkRow>): Promise<number> {
  const clients: Client[] = [];
  try {
    for (const [index, sink] of sinks.entries()) {
      const client = new Client({ connectionString: urls[index], connectionTimeoutMillis: 15_000 });
      clients.push(client);
      await client.connect();
      await client.query(createTableSql(sink.table));
    }
    let sent = 0;
    let chunk: SinkRow[] = [];
    const flush = async () => {
      for (const [index, sink] of sinks.entries()) {
        const statement = upsertSql(sink.table, chunk);
        await clients[index]!.query(statement.text, statement.values);
      }
      sent += chunk.length;
      chunk = [];
      heartbeat({ rows: sent });
    };
    for await (const row of rows) {
      chunk.push(row);
      if (chunk.length >= ROWS_PER_STATEMENT) await flush();
    }
    if (chunk.length > 0) await flush();
    return sent;
  } finally {
    await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
  }
}

/**
 * `sinkPipelineRows`: upserts one row per item and step of a run into each PostgreSQL sink of its
 * definition (creating the table when missing), when the run writes its outputs: the final write, which
 * covers every item whatever the writes made as items settled did. `sinkPipelineItemRows`: the same
 * upsert for the items of one chunk of records, as the run writes them. The connection URL is read from
 * the worker's environment variable the sink names: it never enters workflow history.
 */
export function sqlSinkActivities(deps: ActivityDeps) {
  const env = deps.env ?? process.env;
  return {
    async sinkPipelineRows(input: SinkPipelineRowsInput): Promise<SinkPipelineRowsResult> {
      const sinks: PostgresSink[] = (input.definition.sinks ?? []).map((sink) => sink.postgres);
      if (sinks.length === 0) return { rows: 0, tables: [] };
      const urls = sinkUrls(sinks, env);
      const rows = await upsertRows(sinks, urls, sinkRows(deps.store, input));
      return { rows, tables: sinks.map((sink) => sink.table) };
    },
    async sinkPipelineItemRows(input: SinkItemRowsInput): Promise<SinkPipelineRowsResult> {
      if (input.sinks.length === 0) return { rows: 0, tables: [] };
      const urls = sinkUrls(input.sinks, env);
      const rows = await itemRows(deps.store, input);
      if (rows.length > 0) await upsertRows(input.sinks, urls, rows);
      return { rows: rows.length, tables: input.sinks.map((sink) => sink.table) };
    },
  };
}
