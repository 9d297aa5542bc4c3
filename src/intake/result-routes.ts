import path from 'node:path';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ArtifactRef } from '../domain/artifacts';
import { pipelineRunPrefix } from '../domain/ids';
import type { PipelineItemRecord } from '../domain/pipeline-types';
import { ITEM_KEY_PATTERN, ITEM_KEY_RULE } from '../pipelines/item-keys';
import { errorBody, IntakeError } from './errors';
import { PIPELINE_NAME_PATTERN } from './pipeline-source';

/** What the results routes read: the worker's artifact store (`openArtifactStore`), read only. */
export interface ResultStore {
  /** The bytes under `key`; rejects (an `ArtifactNotFoundError`) when there are none. */
  get(key: string): Promise<Uint8Array>;
  /** Every artifact under `prefix`, sorted by key. */
  list(prefix: string): Promise<ArtifactRef[]>;
  /** The keys under `prefix`, sorted, without describing each artifact (a page of a run's items reads only its own). */
  keys(prefix: string): Promise<string[]>;
  /** The reference of `key`, or undefined when nothing is stored there. */
  stat(key: string): Promise<ArtifactRef | undefined>;
}

/** What the results routes need (they sit behind the app-event routes' bearer check). */
export interface ResultRouteOptions {
  store?: ResultStore;
  /** The intake's public base URL: links are absolute from it, else paths on this intake. */
  publicUrl?: string;
}

/** Results inlined into an item page up to this size; a larger one is linked. */
const INLINE_RESULT_BYTES = 256 * 1024;
const DEFAULT_PAGE = 50;
const MAX_PAGE = 500;

const runParams = z.object({
  pipeline: z.string().regex(PIPELINE_NAME_PATTERN, 'must be a pipeline name: letters, digits, _ and -'),
  runKey: z.string().regex(ITEM_KEY_PATTERN, `must be ${ITEM_KEY_RULE}`),
});
const FILE_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._ -]{0,199}$/;

const outputFile = z.object({
  name: z.string().describe("path inside the run's outputs folder"),
  url: z.string().describe('GET it here (same bearer token)'),
  bytes: z.number(),
  contentType: z.string(),
  object: z.string().optional().describe('the object in the S3 store (s3://bucket/key), when the worker keeps its artifacts there'),
});

const itemPage = z
  .object({
    items: z.array(z.looseObject({ key: z.string(), status: z.string() })).describe("each item's record, with its result inline (or linked when large)"),
    next: z.string().optional().describe('GET it for the next page; absent on the last'),
  })
  .meta({ id: 'RunItems' });

/** The link of a path under the intake. */
export function intakeLink(publicUrl: string | undefined, pathname: string): string {
  return `${publicUrl ?? ''}${pathname}`;
}

/** The path of a run on the intake. */
export function runPath(pipeline: string, runKey: string): string {
  return `/pipelines/${encodeURIComponent(pipeline)}/runs/${encodeURIComponent(runKey)}`;
}

/** An output file as the intake shows it: a link on the intake; the S3 object too (a `file://` path on the worker's disk is of no use to a caller). */
export function outputFileView(publicUrl: string | undefined, pipeline: string, runKey: string, ref: ArtifactRef) {
  const prefix = `${pipelineRunPrefix(pipeline, runKey)}/outputs/`;
  const name = ref.key.startsWith(prefix) ? ref.key.slice(prefix.length) : path.posix.basename(ref.key);
  return {
    name,
    url: intakeLink(publicUrl, `${runPath(pipeline, runKey)}/outputs/${name.split('/').map(encodeURIComponent).join('/')}`),
    bytes: ref.bytes,
    contentType: ref.contentType,
    ...(ref.uri.startsWith('s3://') ? { object: ref.uri } : {}),
  };
}

const notFound = (error: unknown) => (error as { name?: string } | undefined)?.name === 'ArtifactNotFoundError';

/** Reads JSON, or undefined when the key holds nothing. */
async function readJson(store: ResultStore, key: string): Promise<unknown> {
  try {
    return JSON.parse(Buffer.from(await store.get(key)).toString('utf8')) as unknown;
  } catch (error) {
    if (notFound(error)) return undefined;
    throw error;
  }
}

/**
 * Results over HTTP, behind the same bearer tokens as the triggers: a run's item records, paged (each
 * with its result), its output files (JSONL, CSV, Markdown, change report), and an item's stored files
 * (a research task's report, sources, deliverables). Read from the worker's artifact store, local or S3.
 */
export const resultRoutes: FastifyPluginAsyncZod<ResultRouteOptions> = async (app, options) => {
  const security = [{ bearer: [] }];
  const store = (): ResultStore => {
    if (!options.store)
      throw new IntakeError(501, "the intake was started without the worker's artifact store, so it cannot serve results", 'results_unavailable');
    return options.store;
  };
  const errors = { 400: errorBody, 401: errorBody, 404: errorBody, 501: errorBody, 503: errorBody };

  app.get(
    '/pipelines/:pipeline/runs/:runKey/items',
    {
      schema: {
        summary: "A run's items, paged by key, each with its record and result",
        tags: ['results'],
        security,
        params: runParams,
        querystring: z.object({
          limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(DEFAULT_PAGE).describe(`items per page (1 to ${MAX_PAGE})`),
          after: z.string().regex(ITEM_KEY_PATTERN, `must be an item key (${ITEM_KEY_RULE})`).optional().describe('the last key of the previous page'),
        }),
        response: { 200: itemPage, ...errors },
      },
    },
    async (request) => {
      const { pipeline, runKey } = request.params;
      const { limit, after } = request.query;
      const folder = `${pipelineRunPrefix(pipeline, runKey)}/items/`;
      const keys = (await store().keys(folder))
        .filter((key) => key.endsWith('.json') && !key.slice(folder.length).includes('/'))
        .map((key) => key.slice(folder.length, -'.json'.length))
        .filter((key) => after === undefined || key > after);
      if (keys.length === 0 && after === undefined && (await store().keys(`${pipelineRunPrefix(pipeline, runKey)}/`)).length === 0)
        throw new IntakeError(404, `no results of run ${pipeline}/${runKey} in the artifact store (yet)`, 'run_not_found');
      const page = keys.slice(0, limit);
      const base = runPath(pipeline, runKey);
      const items = await Promise.all(
        page.map(async (key) => {
          const record = (await readJson(store(), `${folder}${key}.json`)) as (PipelineItemRecord & Record<string, unknown>) | undefined;
          if (!record) return { key, status: 'unknown' };
          const { outputs, result, ...rest } = record;
          const view: Record<string, unknown> = { ...rest };
          if (result) {
            if (result.bytes <= INLINE_RESULT_BYTES) view.result = await readJson(store(), result.key);
            else
              view.resultUrl = intakeLink(
                options.publicUrl,
                `${base}/items/${encodeURIComponent(key)}/files/${encodeURIComponent(path.posix.basename(result.key))}`,
              );
          }
          if (outputs) {
            const { report, sources, pdf, deliverables, images, ...summary } = outputs;
            view.outputs = summary;
            view.files = [report, sources, pdf, ...deliverables, ...images]
              .filter((ref): ref is ArtifactRef => ref !== undefined)
              .map((ref) => ({
                name: path.posix.basename(ref.key),
                url: intakeLink(options.publicUrl, `${base}/items/${encodeURIComponent(key)}/files/${encodeURIComponent(path.posix.basename(ref.key))}`),
                bytes: ref.bytes,
                contentType: ref.contentType,
                ...(ref.uri.startsWith('s3://') ? { object: ref.uri } : {}),
              }));
          }
          return view as { key: string; status: string };
        }),
      );
      const more = keys.length > limit;
      return { items, ...(more ? { next: intakeLink(options.publicUrl, `${base}/items?limit=${limit}&after=${encodeURIComponent(page.at(-1)!)}`) } : {}) };
    },
  );

  app.get(
    '/pipelines/:pipeline/runs/:runKey/outputs',
    {
      schema: {
        summary: "A run's output files (written when the run ends)",
        tags: ['results'],
        security,
        params: runParams,
        response: { 200: z.object({ files: z.array(outputFile) }).meta({ id: 'RunOutputs' }), ...errors },
      },
    },
    async (request) => {
      const { pipeline, runKey } = request.params;
      const refs = (await store().list(`${pipelineRunPrefix(pipeline, runKey)}/outputs/`)).filter(
        (ref) => !ref.key.split('/').some((part) => part.startsWith('.')),
      );
      return { files: refs.map((ref) => outputFileView(options.publicUrl, pipeline, runKey, ref)) };
    },
  );

  const sendFile = async (key: string, reply: FastifyReply, what: string) => {
    let bytes: Uint8Array;
    try {
      bytes = await store().get(key);
    } catch (error) {
      if (notFound(error)) throw new IntakeError(404, `no ${what}`, 'file_not_found');
      throw error;
    }
    const contentType = (await store().stat(key))?.contentType ?? 'application/octet-stream';
    return reply
      .header('content-type', contentType)
      .header('x-content-type-options', 'nosniff')
      .header('content-disposition', `inline; filename="${path.posix.basename(key).replace(/[^A-Za-z0-9._ -]/g, '_')}"`)
      .send(Buffer.from(bytes));
  };

  app.get(
    '/pipelines/:pipeline/runs/:runKey/outputs/*',
    {
      schema: { summary: 'One output file of a run', tags: ['results'], security, params: runParams.extend({ '*': z.string() }), response: errors },
    },
    async (request, reply) => {
      const { pipeline, runKey } = request.params;
      const name = request.params['*'];
      if (!name.split('/').every((part) => FILE_SEGMENT.test(part)))
        throw new IntakeError(400, 'the file name must be a path inside the outputs folder (no empty, hidden or .. segments)', 'bad_file_name', [
          { path: 'params.*', message: 'must be a file of the outputs folder' },
        ]);
      return sendFile(`${pipelineRunPrefix(pipeline, runKey)}/outputs/${name}`, reply, `output file ${name} in run ${pipeline}/${runKey}`);
    },
  );

  app.get(
    '/pipelines/:pipeline/runs/:runKey/items/:item/files/:file',
    {
      schema: {
        summary: "One stored file of an item (a research task's report, sources, deliverables; a large result)",
        tags: ['results'],
        security,
        params: runParams.extend({
          item: z.string().regex(ITEM_KEY_PATTERN, `must be ${ITEM_KEY_RULE}`),
          file: z.string().regex(FILE_SEGMENT, 'must be a file name'),
        }),
        response: errors,
      },
    },
    async (request, reply) => {
      const { pipeline, runKey, item, file } = request.params;
      const record = (await readJson(store(), `${pipelineRunPrefix(pipeline, runKey)}/items/${item}.json`)) as PipelineItemRecord | undefined;
      if (!record) throw new IntakeError(404, `no item ${item} in run ${pipeline}/${runKey}`, 'item_not_found');
      // Only files the item's record names: the route never reads another key of the store.
      const outputs = record.outputs;
      const refs = [record.result, outputs?.report, outputs?.sources, outputs?.pdf, ...(outputs?.deliverables ?? []), ...(outputs?.images ?? [])];
      const ref = refs.find((candidate) => candidate !== undefined && path.posix.basename(candidate.key) === file);
      if (!ref) throw new IntakeError(404, `item ${item} has no file ${file}`, 'file_not_found');
      return sendFile(ref.key, reply, `file ${file} of item ${item}`);
    },
  );
};
