import fastifySwagger from '@fastify/swagger';
import type { Client } from '@temporalio/client';
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { WebhookSecretStore } from '../shared/webhook-secrets';
import { ResearchPipelineKey } from '../workflows/search-attributes';
import { errorBody, grpcCode, installErrorHandler } from './errors';
import { IntakeMetrics } from './metrics';
import type { ResultStore } from './result-routes';
import { runRoutes } from './run-routes';
import { webhookRoutes } from './webhook-route';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body's bytes as received: webhook signatures are checked over these, never over re-serialised JSON. */
    rawBody?: Buffer;
  }
}

/** What the intake serves with. */
export interface IntakeOptions {
  /** A Temporal client; a lazily connecting one lets the intake start (and refuse bad requests) while Temporal is down. */
  client: Client;
  secrets: WebhookSecretStore;
  /** Key of the webhook URLs' route tokens (the worker's INTAKE_KEY). */
  intakeKey: string;
  /** The worker's artifact store, read by the results routes (without it they answer 501). */
  results?: ResultStore;
  /** Bearer tokens of the app-event routes (none: those routes refuse every request). */
  tokens: readonly string[];
  pipelinesDir: string;
  taskQueue: string;
  namespace: string;
  temporalUiUrl?: string;
  /** The intake's public base URL (INTAKE_PUBLIC_URL), for the links in its answers. */
  publicUrl?: string;
  bodyLimitBytes?: number;
  webhookToleranceSeconds?: number;
  /** Deadline of each Temporal call made for a request (default 5 s): past it the answer is 503. */
  temporalTimeoutMs?: number;
  /** Open connections at most (default 1,024); more are closed on arrival. */
  maxConnections?: number;
  /** TLS certificate and key (PEM): the intake then speaks HTTPS. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** The clock webhook timestamps are checked against (epoch ms). */
  now?: () => number;
  /** Fastify's logger: true for JSON logs with secrets redacted (`intakeLoggerOptions`), false for none. */
  logger?: FastifyServerOptions['logger'];
}

/** A built intake: the fastify app (routes registered, not listening) and its metrics. */
export interface Intake {
  app: FastifyInstance;
  metrics: IntakeMetrics;
}

const MAX_PARAM_LENGTH = 2_048;
const MAX_JSON_DEPTH = 64;

/** Whether JSON text opens more than `limit` arrays or objects at once (brackets inside strings do not count). */
function jsonDepthOver(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text.charCodeAt(index);
    if (inString) {
      if (character === 0x5c) index += 1;
      else if (character === 0x22) inString = false;
    } else if (character === 0x22) inString = true;
    else if (character === 0x5b || character === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (character === 0x5d || character === 0x7d) depth -= 1;
  }
  return false;
}

/** The URL path of a webhook with its route token masked, for logs. */
export function maskedUrl(url: string): string {
  return url.replace(/(\/webhooks\/research\/[^/?]+\/)[^/?]+/, '$1[redacted]');
}

/** JSON logs (pino) with authorization headers, webhook signatures and URL tokens redacted. */
export const intakeLoggerOptions = {
  level: 'info',
  redact: {
    paths: ['req.headers.authorization', 'req.headers["x-webhook-signature"]', 'req.headers.cookie', 'headers.authorization', 'headers["x-webhook-signature"]'],
    censor: '[redacted]',
  },
  serializers: {
    req: (request: { method: string; url: string; ip?: string; headers?: Record<string, unknown> }) => ({
      method: request.method,
      url: maskedUrl(request.url),
      remoteAddress: request.ip,
    }),
  },
};

/** Builds the intake: service webhooks, app-event routes, health, readiness, metrics and its OpenAPI document. */
export async function buildIntake(options: IntakeOptions): Promise<Intake> {
  const logger = options.logger === true || options.logger === undefined ? intakeLoggerOptions : options.logger;
  const app = Fastify({
    logger,
    bodyLimit: options.bodyLimitBytes ?? 1024 * 1024,
    // Workflow ids may be up to 1,000 bytes (Temporal's default), percent-encoded in the webhook path.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // A body trickled a byte a second must not hold a connection: whole request 30 s, idle socket 60 s.
    requestTimeout: 30_000,
    connectionTimeout: 60_000,
    // Errors raised before routing (a path segment too long, a bad URL) quote the path, route token and all.
    frameworkErrors: (error: { code?: string }, _request: unknown, reply: { status(code: number): { send(body: unknown): void } }) => {
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
        reply
          .status(414)
          .send({ error: `a path segment is longer than ${MAX_PARAM_LENGTH} characters (no workflow id or route token is)`, code: 'path_too_long' });
      else reply.status(400).send({ error: 'the request URL is malformed', code: 'bad_url' });
    },
    ...(options.tls ? { https: { cert: options.tls.cert, key: options.tls.key } } : {}),
  } as FastifyServerOptions).withTypeProvider<ZodTypeProvider>();
  app.server.headersTimeout = 10_000;
  app.server.maxConnections = options.maxConnections ?? 1_024;
  const metrics = new IntakeMetrics();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app, metrics);

  // JSON is parsed by fastify's own (prototype-poisoning safe) parser; the bytes are kept for signatures.
  // Its declared type joins the callback and the promise forms; it is the callback form (it calls `done` before it
  // returns), so nothing is left pending.
  const parseJson = app.getDefaultJsonParser('error', 'error') as (
    request: FastifyRequest,
    body: string,
    done: (error: Error | null, body?: unknown) => void,
  ) => void;
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    request.rawBody = body as Buffer;
    const text = (body as Buffer).toString('utf8');
    // Schemas walk nested values recursively: refuse deep nesting before anything recurses into it.
    if (jsonDepthOver(text, MAX_JSON_DEPTH))
      return done(Object.assign(new Error(`the JSON is nested deeper than ${MAX_JSON_DEPTH} levels`), { statusCode: 400 }), undefined);
    parseJson(request, text, done);
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'research-pipelines intake', version: '1', description: 'Service webhooks, app-event triggers and checkpoint answers' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    transform: jsonSchemaTransform,
    // Emits the schemas named with .meta({ id }) as components, which the routes refer to.
    transformObject: jsonSchemaTransformObject,
  });

  const temporalTimeoutMs = options.temporalTimeoutMs ?? 5_000;
  await app.register(webhookRoutes, {
    client: options.client,
    secrets: options.secrets,
    intakeKey: options.intakeKey,
    metrics,
    toleranceSeconds: options.webhookToleranceSeconds ?? 300,
    signalTimeoutMs: temporalTimeoutMs,
    now: options.now ?? Date.now,
  });
  await app.register(runRoutes, {
    client: options.client,
    tokens: options.tokens,
    pipelinesDir: options.pipelinesDir,
    taskQueue: options.taskQueue,
    namespace: options.namespace,
    timeoutMs: temporalTimeoutMs,
    ...(options.results ? { results: options.results } : {}),
    ...(options.temporalUiUrl ? { temporalUiUrl: options.temporalUiUrl } : {}),
    ...(options.publicUrl ? { publicUrl: options.publicUrl.replace(/\/+$/, '') } : {}),
  });

  const ok = z.object({ status: z.literal('ok') });
  app.get('/healthz', { schema: { summary: 'The process is up', tags: ['health'], response: { 200: ok } } }, async () => ({ status: 'ok' as const }));
  app.get(
    '/readyz',
    {
      schema: {
        summary:
          'Temporal is reachable with what requests need: the namespace and the search attributes runs are started with (503 otherwise, naming what is missing)',
        tags: ['health'],
        response: { 200: ok, 503: errorBody },
      },
    },
    async (request, reply) => {
      const { client } = options;
      const namespace = client.options.namespace;
      const deadline = Date.now() + Math.min(temporalTimeoutMs, 2_000);
      try {
        await client.withDeadline(deadline, () => client.workflowService.describeNamespace({ namespace }));
      } catch (error) {
        const code = grpcCode(error);
        if (code === 5) return reply.status(503).send({ error: `Temporal has no namespace "${namespace}"`, code: 'temporal_not_ready' });
        if (code === 7 || code === 16)
          return reply.status(503).send({ error: `the intake may not use namespace "${namespace}" (permission denied)`, code: 'temporal_not_ready' });
        request.log.warn({ err: error }, 'readiness: Temporal is not reachable');
        return reply.status(503).send({ error: 'Temporal is not reachable', code: 'temporal_unavailable' });
      }
      try {
        const { customAttributes } = await client.withDeadline(deadline, () => client.connection.operatorService.listSearchAttributes({ namespace }));
        const missing = [ResearchPipelineKey.name].filter((name) => (customAttributes ?? {})[name] === undefined);
        if (missing.length > 0)
          return reply.status(503).send({
            error: `namespace "${namespace}" lacks the search attribute${missing.length > 1 ? 's' : ''} ${missing.join(', ')} that runs are started with (rp register-search-attributes adds them)`,
            code: 'temporal_not_ready',
          });
      } catch (error) {
        // Listing needs operator rights the intake may lack: the namespace answered, which is what requests need most.
        request.log.debug({ err: error }, 'readiness: search attributes could not be listed');
      }
      return { status: 'ok' as const };
    },
  );
  app.get(
    '/metrics',
    { schema: { summary: 'Prometheus metrics (webhook verifications by outcome and reason)', tags: ['health'], produces: ['text/plain'] } },
    async (_request, reply) => {
      return reply.type(metrics.registry.contentType).send(await metrics.text());
    },
  );
  app.get('/openapi.json', { schema: { summary: 'This document', tags: ['health'] } }, async () => app.swagger());
  return { app, metrics };
}
