import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { checkpointAnswer } from '../domain/messages';
import { ITEM_KEY_PATTERN, ITEM_KEY_RULE } from '../pipelines/item-keys';
import { MAX_NOTIFY_URLS, notifyUrl } from '../pipelines/delivery-schema';
import { parameterValue } from '../pipelines/parameter-schema';
import { stepId } from '../pipelines/step-schema';
import { ParameterError } from '../pipelines/parameters';
import { answerItemCheckpoint, cancelRun, runProgress } from '../runs/control';
import { ItemStepTaskError } from '../runs/item-steps';
import { RunKeyConflictError, startPipeline } from '../runs/start';
import { bearerAuthenticator } from './auth';
import { callTemporal, errorBody, IntakeError } from './errors';
import { loadNamedPipeline, PIPELINE_NAME_PATTERN } from './pipeline-source';
import { intakeLink, outputFileView, resultRoutes, runPath, type ResultStore } from './result-routes';

/** What the app-event routes need. */
export interface RunRouteOptions {
  client: Client;
  tokens: readonly string[];
  pipelinesDir: string;
  taskQueue: string;
  namespace: string;
  temporalUiUrl?: string;
  /** The intake's public base URL (INTAKE_PUBLIC_URL): status links are built from it, never from the request's Host. */
  publicUrl?: string;
  timeoutMs: number;
  /** The worker's artifact store, for the results routes. */
  results?: ResultStore;
}

const key = (what: string) => z.string().regex(ITEM_KEY_PATTERN, `must be ${ITEM_KEY_RULE}`).describe(what);
const pipelineName = z
  .string()
  .regex(PIPELINE_NAME_PATTERN, 'must be a pipeline name: letters, digits, _ and -')
  .describe('the pipeline (its file in the pipelines directory)');
const runParams = z.object({ pipeline: pipelineName, runKey: key('the run key (the Idempotency-Key that started it)') });
const auth = z.object({ authorization: z.string().optional().describe('Bearer <token>') });

const startBody = z
  .strictObject({
    params: z.record(z.string(), parameterValue).optional().describe("parameter values by name (the definition's parameters)"),
    notify: z
      .array(notifyUrl)
      .max(MAX_NOTIFY_URLS, `at most ${MAX_NOTIFY_URLS} URLs`)
      .optional()
      .describe("receivers of the run's signed events (Standard Webhooks), besides the definition's notify:"),
    callback_url: notifyUrl.optional().describe('one receiver, the same as notify: [url]'),
  })
  .meta({ id: 'StartRun' });

const runLinks = z
  .object({
    workflowId: z.string(),
    pipeline: z.string(),
    runKey: z.string(),
    started: z.boolean().describe('true: a new run (201); false: the run this key already had (200)'),
    statusUrl: z.string().describe('GET it for progress: absolute from INTAKE_PUBLIC_URL, else a path on this intake'),
    temporalUiUrl: z.string().optional().describe('the run in the Temporal UI, when TEMPORAL_UI_URL is configured'),
  })
  .meta({ id: 'RunStarted' });

// The workflow's own envelope, with no fields beside it: the item's workflow checks the response's shape.
// `step` (not sent to the workflow) picks a `steps:` item's step; by default the step whose task runs now.
const checkpointBody = checkpointAnswer
  .extend({ step: stepId.describe("a steps: item's step whose research task to answer (default: the one running now)").optional() })
  .strict()
  .meta({ id: 'CheckpointAnswer' });

/** An item with no task to act on (a `steps:` item at a call step, say): 409, with where the item is. */
function noStepTask(error: unknown): never {
  if (error instanceof ItemStepTaskError) throw new IntakeError(409, error.message, 'no_step_task');
  throw error;
}

const runState = z
  .looseObject({
    pipeline: z.string(),
    runKey: z.string(),
    phase: z.string().describe('running, waiting_for_budget, paused, completed, failed, cancelled, ...'),
    counts: z.unknown().describe('numbers: read, completed, failed, running, reused, cancelled, skipped'),
    ledger: z.unknown().describe('spentUsd, reservedUsd, budgetUsd'),
    waitingOnCheckpoint: z.array(z.string()).optional().describe('items whose research task waits at a checkpoint (absent where visibility cannot tell)'),
    outputs: z
      .object({ files: z.array(z.looseObject({ name: z.string(), url: z.string() })) })
      .optional()
      .describe('the output files, once written: links on this intake (and the S3 objects with the S3 store)'),
    links: z.object({ items: z.string(), outputs: z.string() }).describe("the run's items (paged) and output files on this intake"),
  })
  .describe('the pipelineRunState query, with waitingOnCheckpoint')
  .meta({ id: 'RunProgress' });

const errors = { 400: errorBody, 401: errorBody, 404: errorBody, 413: errorBody, 415: errorBody, 503: errorBody };

/**
 * App-event routes (bearer token): start a pipeline run with an idempotency key, read its progress,
 * answer an item's checkpoint, cancel the run or an item. They reuse what `rp run/status/respond/cancel` call.
 */
export const runRoutes: FastifyPluginAsyncZod<RunRouteOptions> = async (app, options) => {
  const { client, timeoutMs } = options;
  app.addHook('onRequest', bearerAuthenticator(options.tokens));
  const security = [{ bearer: [] }];
  await app.register(resultRoutes, { ...(options.results ? { store: options.results } : {}), ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}) });

  app.post(
    '/pipelines/:pipeline/runs',
    {
      schema: {
        summary: 'Start a pipeline run (one run per Idempotency-Key, ever)',
        tags: ['runs'],
        security,
        params: z.object({ pipeline: pipelineName }),
        headers: auth.extend({ 'idempotency-key': key('one run per key: a repeated event starts nothing twice') }),
        body: startBody.optional(),
        response: { 200: runLinks, 201: runLinks, 422: errorBody, ...errors },
      },
    },
    async (request, reply) => {
      const { pipeline } = request.params;
      const runKey = request.headers['idempotency-key'];
      const loaded = await loadNamedPipeline(options.pipelinesDir, pipeline);
      const notify = [...(request.body?.notify ?? []), ...(request.body?.callback_url ? [request.body.callback_url] : [])];
      if (new Set([...(loaded.definition.notify ?? []), ...notify]).size > MAX_NOTIFY_URLS)
        throw new IntakeError(422, `a run notifies at most ${MAX_NOTIFY_URLS} URLs, the definition's notify: included`, 'too_many_receivers', [
          { path: 'body.notify', message: `at most ${MAX_NOTIFY_URLS} URLs with the definition's` },
        ]);
      let started;
      try {
        started = await callTemporal(client, timeoutMs, `pipeline ${pipeline}`, () =>
          startPipeline(client, loaded, request.body?.params ?? {}, {
            runKey,
            taskQueue: options.taskQueue,
            notify,
            missingHint: (name) => `give it in the body as params.${name}`,
          }),
        );
      } catch (error) {
        if (error instanceof RunKeyConflictError)
          throw new IntakeError(
            409,
            error.message,
            'run_key_conflict',
            error.differing.map((name) => ({ path: `body.params.${name}`, message: 'differs from the run this key started' })),
          );
        if (!(error instanceof ParameterError)) throw error;
        const issues = error.problems.map((problem) => {
          const name = /^parameter ([^:]+):/.exec(problem)?.[1] ?? /^unknown parameter "([^"]+)"/.exec(problem)?.[1];
          return { path: name ? `body.params.${name}` : 'body.params', message: problem };
        });
        throw new IntakeError(422, `the parameters do not fit pipeline ${pipeline}: ${error.problems.join('; ')}`, 'invalid_parameters', issues);
      }
      const links = linksOf(options, pipeline, runKey, started.workflowId);
      reply.header('location', links.statusUrl);
      return reply.status(started.started ? 201 : 200).send({ ...links, started: started.started });
    },
  );

  app.get(
    '/pipelines/:pipeline/runs/:runKey',
    {
      schema: { summary: "A run's status and progress", tags: ['runs'], security, params: runParams, headers: auth, response: { 200: runState, ...errors } },
    },
    async (request) => {
      const { pipeline, runKey } = request.params;
      const progress = await callTemporal(client, timeoutMs, `no run ${pipeline}/${runKey}`, () => runProgress(client, pipeline, runKey));
      // Output locations as a caller can reach them: links on this intake, never file:// paths on the worker's disk.
      const { outputs, ...rest } = progress;
      const base = runPath(pipeline, runKey);
      return {
        ...rest,
        ...(outputs
          ? {
              outputs: {
                // The change report is written beside the files, in the outputs folder.
                files: [...outputs.files, ...(outputs.changes ? [outputs.changes] : [])].map((ref) => outputFileView(options.publicUrl, pipeline, runKey, ref)),
              },
            }
          : {}),
        links: { items: intakeLink(options.publicUrl, `${base}/items`), outputs: intakeLink(options.publicUrl, `${base}/outputs`) },
      };
    },
  );

  app.post(
    '/pipelines/:pipeline/runs/:runKey/cancel',
    {
      schema: {
        summary: "Cancel a run (or one item's research task)",
        tags: ['runs'],
        security,
        params: runParams,
        headers: auth,
        body: z
          .strictObject({
            item: key("cancel only this item's research task (a steps: item's: the step task running now)").optional(),
            step: stepId.describe("with item: the steps: item's step whose research task to cancel").optional(),
          })
          .optional(),
        response: { 202: z.object({ cancelRequested: z.string().describe('the workflow id') }), 409: errorBody, ...errors },
      },
    },
    async (request, reply) => {
      const { pipeline, runKey } = request.params;
      const item = request.body?.item;
      const step = request.body?.step;
      if (step !== undefined && item === undefined)
        throw new IntakeError(422, 'invalid request: step: give item too (the item whose step it is)', 'invalid_request');
      const workflowId = await callTemporal(client, timeoutMs, `no run ${pipeline}/${runKey}${item ? ` item ${item}` : ''}`, () =>
        cancelRun(client, pipeline, runKey, item, step),
      ).catch(noStepTask);
      return reply.status(202).send({ cancelRequested: workflowId });
    },
  );

  app.post(
    '/pipelines/:pipeline/runs/:runKey/items/:item/checkpoint',
    {
      schema: {
        summary: "Answer the checkpoint an item's research task waits at",
        tags: ['runs'],
        security,
        params: runParams.extend({ item: key('the item key') }),
        headers: auth,
        body: checkpointBody,
        response: { 200: z.object({ accepted: z.literal(true), interactionId: z.string() }), 409: errorBody, ...errors },
      },
    },
    async (request) => {
      const { pipeline, runKey, item } = request.params;
      try {
        return await callTemporal(client, timeoutMs, `no item ${item} in run ${pipeline}/${runKey}`, () =>
          answerItemCheckpoint(
            client,
            pipeline,
            runKey,
            item,
            { interactionId: request.body.interactionId, response: request.body.response as never },
            request.body.step,
          ),
        );
      } catch (error) {
        if (error instanceof WorkflowUpdateFailedError)
          throw new IntakeError(409, `answer refused: ${error.cause?.message ?? error.message}`, 'answer_refused');
        return noStepTask(error);
      }
    },
  );
};

/**
 * A run's links. The status link is built from the configured public URL only: a `Host` header is the
 * caller's to choose, and reflecting it into `Location` lets anyone point the answer at another site.
 * Without a public URL the link is a path on this intake (a relative `Location` is valid HTTP).
 */
function linksOf(options: RunRouteOptions, pipeline: string, runKey: string, workflowId: string) {
  const statusUrl = `${options.publicUrl ?? ''}/pipelines/${encodeURIComponent(pipeline)}/runs/${encodeURIComponent(runKey)}`;
  const ui = options.temporalUiUrl
    ? { temporalUiUrl: `${options.temporalUiUrl}/namespaces/${encodeURIComponent(options.namespace)}/workflows/${encodeURIComponent(workflowId)}` }
    : {};
  return { workflowId, pipeline, runKey, statusUrl, ...ui };
}
