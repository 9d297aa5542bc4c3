import { isGrpcServiceError, ServiceError, WorkflowNotFoundError, WorkflowUpdateRPCTimeoutOrCancelledError, type Client } from '@temporalio/client';
import { NamespaceNotFoundError } from '@temporalio/common';
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IntakeMetrics } from './metrics';

/** One problem of a request: where (`body.response.approved`) and which rule. */
export interface Issue {
  path: string;
  message: string;
}

/** The JSON body of every error answer. */
export const errorBody = z
  .object({
    error: z.string().describe('what went wrong, in a sentence'),
    code: z.string().optional().describe('a stable code for programs'),
    issues: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .describe('each field that broke a rule'),
  })
  .meta({ id: 'Error' });

/** An error answer of the intake: status, message, a stable code and the fields at fault. */
export class IntakeError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code: string,
    readonly issues?: readonly Issue[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'IntakeError';
  }
}

/** gRPC status codes that no retry fixes: Temporal refused the request itself (its configuration, permissions or the request). */
const PERMANENT_GRPC_CODES: Readonly<Record<number, string>> = {
  3: 'invalid argument',
  5: 'not found',
  7: 'permission denied',
  9: 'failed precondition',
  12: 'not implemented',
  16: 'not authenticated',
};

/** The gRPC status code of a Temporal client error, if it carries one. */
export function grpcCode(error: unknown): number | undefined {
  const direct = (error as { code?: unknown } | undefined)?.code;
  if (typeof direct === 'number') return direct;
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof cause === 'number' ? cause : undefined;
}

/**
 * Runs a Temporal call with a deadline. A workflow that does not exist becomes 404 (`notFound` says which);
 * Temporal down, unreachable or too slow becomes 503, so a caller (the service, say) retries. Anything
 * else (an update the workflow refused, say) is the caller's to answer.
 */
export async function callTemporal<T>(client: Client, timeoutMs: number, notFound: string, call: () => Promise<T>): Promise<T> {
  try {
    return await client.withDeadline(Date.now() + timeoutMs, call);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new IntakeError(404, notFound, 'workflow_not_found');
    if (error instanceof NamespaceNotFoundError)
      throw new IntakeError(500, `Temporal refused the request (namespace "${error.namespace}" not found); see the intake log`, 'temporal_refused', undefined, {
        cause: error,
      });
    const code = grpcCode(error);
    // A refusal no retry fixes (a missing namespace or search attribute, no permission) is the intake's
    // own fault: 500 with the reason in the log, not "try later".
    if ((error instanceof ServiceError || isGrpcServiceError(error)) && code !== undefined && PERMANENT_GRPC_CODES[code]) {
      throw new IntakeError(500, `Temporal refused the request (${PERMANENT_GRPC_CODES[code]}); see the intake log`, 'temporal_refused', undefined, {
        cause: error,
      });
    }
    if (error instanceof ServiceError || isGrpcServiceError(error) || error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
      throw new IntakeError(503, 'Temporal is unreachable or did not answer in time; try again later', 'temporal_unavailable');
    }
    throw error;
  }
}

// Fastify's own codes for what the brief calls bad input, answered with our wording.
const fastifyCodes: Record<string, { status: number; code: string; message?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'body_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type', message: 'Content-Type must be application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'bad_content_length' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'malformed_json', message: 'the body is empty; send a JSON object' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'malformed_json' },
};

/** Answers every error as `{error, code, issues?}` JSON with the right status; unexpected errors are logged and answered 500. */
export function installErrorHandler(app: FastifyInstance, metrics: IntakeMetrics): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      if (request.routeOptions.url?.startsWith('/webhooks/')) metrics.record({ ok: false, reason: 'bad_body' });
      const issues = error.validation.map((issue) => ({
        path: [error.validationContext, ...issue.instancePath.split('/').filter(Boolean)].join('.'),
        message: issue.message,
      }));
      return reply
        .status(400)
        .send({ error: `invalid request: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`, code: 'invalid_request', issues });
    }
    if (error instanceof IntakeError) {
      if (error.statusCode >= 500 && error.cause !== undefined) request.log.error({ err: error.cause }, error.message);
      return reply.status(error.statusCode).send({ error: error.message, code: error.code, ...(error.issues ? { issues: error.issues } : {}) });
    }
    const known = error.code ? fastifyCodes[error.code] : undefined;
    if (known) return reply.status(known.status).send({ error: known.message ?? error.message, code: known.code });
    if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
      return reply.status(400).send({ error: `the body is not valid JSON: ${error.message}`, code: 'malformed_json' });
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.status(error.statusCode).send({ error: error.message, code: error.code ?? 'bad_request' });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send({ error: 'internal error; see the intake log', code: 'internal' });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({
      error: `no route ${request.method} ${request.url.split('?')[0]!.replace(/(\/webhooks\/research\/[^/]+\/)[^/]+/, '$1[token]')}`,
      code: 'no_route',
    }),
  );
}
