import { createHash } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { encodeToPayloads } from '@temporalio/common/lib/internal-non-workflow';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { WebhookSecretStore } from '../shared/webhook-secrets';
import { verifyWebhookSignature, webhookRouteTokenMatches } from '../api/webhooks';
import { webhookReceivedSignal } from '../workflows/definitions';
import type { WebhookNotice } from '../domain/messages';
import { callTemporal, errorBody, grpcCode, IntakeError } from './errors';

/**
 * The request id of a delivery's signal, the same from any intake process for one delivery: Temporal keeps
 * the request ids of the signals a workflow run took and drops a repeat, so a duplicate delivered to
 * another intake, or after a restart, signals nothing twice (the in-process memory only saves the call).
 */
export function deliveryRequestId(workflowId: string, delivery: string): string {
  const hex = createHash('sha256').update(`${workflowId}\n${delivery}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Sends `webhookReceived` with a request id of our choosing (the client's `signal` makes a random one). */
async function signalOnce(client: Client, workflowId: string, notice: WebhookNotice, requestId: string): Promise<void> {
  try {
    await client.workflowService.signalWorkflowExecution({
      namespace: client.options.namespace,
      workflowExecution: { workflowId },
      signalName: webhookReceivedSignal.name,
      input: { payloads: await encodeToPayloads(client.options.loadedDataConverter, notice) },
      identity: client.options.identity,
      requestId,
    });
  } catch (error) {
    // Not found is the workflow's absence (closed runs cannot take signals either); a missing namespace is not.
    if (grpcCode(error) === 5 && !/namespace/i.test((error as Error).message))
      throw new WorkflowNotFoundError(`no workflow ${workflowId}`, workflowId, undefined);
    throw error;
  }
}
import type { IntakeMetrics, WebhookRejection } from './metrics';

/** What the webhook route needs. */
export interface WebhookRouteOptions {
  client: Client;
  secrets: WebhookSecretStore;
  intakeKey: string;
  metrics: IntakeMetrics;
  toleranceSeconds: number;
  signalTimeoutMs: number;
  now: () => number;
}

/** The part of a task or batch completion webhook the intake reads; the rest is the service's and passes untouched. */
const webhookPayload = z
  .looseObject({
    deepresearch_id: z.string().min(1).max(200).optional(),
    batch_id: z.string().min(1).max(200).optional(),
    status: z.string().min(1).max(100).optional(),
    delivery_id: z.string().min(1).max(200).optional().describe("stable across the service's retries and duplicates of one delivery, when it sends one"),
  })
  .refine((body) => body.deepresearch_id !== undefined || body.batch_id !== undefined, {
    message: 'needs deepresearch_id (a task) or batch_id (a batch)',
    path: ['deepresearch_id'],
  })
  .meta({ id: 'ServiceWebhook', description: 'A completion webhook of the research service (task or batch)' });

const params = z.object({
  workflowId: z.string().min(1).max(1000).describe('the workflow the delivery is for (URL-encoded)'),
  token: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, 'must be the 43-character route token of the webhook URL')
    .describe('route token: base64url HMAC-SHA256(intake key, workflow id)'),
});

const headers = z.object({
  'x-webhook-signature': z.string().optional().describe('sha256=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>'),
  'x-webhook-timestamp': z.string().optional().describe('Unix seconds'),
});

const accepted = z
  .object({
    delivered: z.boolean().describe('true: the workflow was signalled; false: a duplicate already delivered, or the workflow has closed'),
    workflowId: z.string(),
  })
  .meta({ id: 'WebhookAccepted' });

const rejectionText: Record<WebhookRejection, string> = {
  missing: 'the X-Webhook-Signature or X-Webhook-Timestamp header is missing',
  malformed_signature: 'X-Webhook-Signature is not sha256= followed by 64 hex characters',
  malformed_timestamp: 'X-Webhook-Timestamp is not a Unix time in seconds',
  stale_timestamp: 'X-Webhook-Timestamp is outside the allowed tolerance (a stale or replayed delivery)',
  mismatch: 'the signature does not match the body',
  route_token: 'the URL token is not the one of this workflow',
  unknown_secret: 'no webhook secret is kept for this task or batch',
  bad_body: 'the body is not a service webhook',
};

/**
 * `POST /webhooks/research/:workflowId/:token`: a service webhook. The route token must be the workflow's
 * (a delivery reaches only the workflow its URL names), the signature must match the raw body with a
 * fresh timestamp; then the workflow gets `webhookReceived` with the ids and status only (a hint: it
 * fetches the authoritative status). A duplicate within the tolerance window is answered without a
 * second signal.
 */
export const webhookRoutes: FastifyPluginAsyncZod<WebhookRouteOptions> = async (app, options) => {
  const { client, secrets, intakeKey, metrics, now } = options;
  // Deliveries already passed to a workflow, each kept until its timestamp leaves the tolerance window (the
  // signature check refuses it after that), so a repeat inside the window is answered without a signal.
  // Bounded: past 100,000 the least recent go first. Time is the intake's clock, read on every check.
  const delivered = new LRUCache<string, true>({ max: 100_000, ttlResolution: 0, perf: { now } });
  // Answered here rather than thrown: a flood of forged deliveries should cost no stack traces.
  const reject = (reply: FastifyReply, reason: WebhookRejection, status: 401 | 403 = 401) => {
    metrics.record({ ok: false, reason });
    return reply.code(status).send({ error: `webhook rejected: ${rejectionText[reason]}`, code: `webhook_${reason}` });
  };

  app.post(
    '/webhooks/research/:workflowId/:token',
    {
      schema: {
        summary: 'Service completion webhook for a research task or batch workflow',
        tags: ['webhooks'],
        params,
        headers,
        body: webhookPayload,
        response: { 200: accepted, 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 413: errorBody, 415: errorBody, 503: errorBody },
      },
    },
    async (request, reply) => {
      const { workflowId, token } = request.params;
      if (!webhookRouteTokenMatches(intakeKey, workflowId, token)) return reject(reply, 'route_token', 403);
      const body = request.body;
      const id = body.deepresearch_id ?? body.batch_id!;
      const secret = await secrets.get(id);
      if (!secret) return reject(reply, 'unknown_secret');
      const signature = request.headers['x-webhook-signature'];
      const timestamp = request.headers['x-webhook-timestamp'];
      const at = now();
      const verdict = verifyWebhookSignature({
        secret,
        signature,
        timestamp,
        body: request.rawBody ?? '',
        toleranceSeconds: options.toleranceSeconds,
        now: at,
      });
      if (!verdict.ok) return reject(reply, verdict.reason);
      // A delivery id (signed, stable across retries) names a duplicate best; without one, the exact signature
      // does. Keyed by workflow too: only a repeat to the same workflow is a duplicate.
      const seen = `${workflowId}\n${body.delivery_id ? `id:${body.delivery_id}` : `sig:${signature!}`}`;
      if (delivered.has(seen)) {
        metrics.record({ ok: true, duplicate: true });
        return { delivered: false, workflowId };
      }
      const notice: WebhookNotice = {
        ...(body.deepresearch_id ? { deepresearchId: body.deepresearch_id } : {}),
        ...(body.batch_id ? { batchId: body.batch_id } : {}),
        ...(body.status ? { status: body.status } : {}),
      };
      const handle = client.workflow.getHandle(workflowId);
      try {
        await callTemporal(client, options.signalTimeoutMs, `no workflow ${workflowId}`, () =>
          signalOnce(client, workflowId, notice, deliveryRequestId(workflowId, seen)),
        );
      } catch (error) {
        // A late copy for a workflow that has closed is harmless: answer 2xx so the service stops retrying.
        if (!(error instanceof IntakeError && error.statusCode === 404)) throw error;
        const closed = await handle.describe().then(
          (description) => description.status.name !== 'RUNNING',
          () => false,
        );
        if (!closed) throw error;
        metrics.record({ ok: true, duplicate: true });
        return { delivered: false, workflowId };
      }
      delivered.set(seen, true, { start: Number(timestamp) * 1000, ttl: options.toleranceSeconds * 1000 });
      metrics.record({ ok: true });
      return { delivered: true, workflowId };
    },
  );
};
