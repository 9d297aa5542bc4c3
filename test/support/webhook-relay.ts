import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature } from '../../src/api';
import type { WebhookSecretStore } from '../../src/activities';
import type { WebhookNotice } from '../../src/workflows/types';

/**
 * A stand-in for the intake's webhook route, shared by the scenarios and the benchmarks: it takes the
 * service's completion webhooks at `/webhooks/research/<workflow id>`, verifies each signature with the
 * secret the create stored, and hands the verified notice to `deliver` (which signals the workflow).
 */
export interface WebhookRelayOptions {
  /** Where the activities keep each task's webhook secret. */
  secrets: WebhookSecretStore;
  /** The clock the signature timestamps are checked against (the emulator's). */
  now: () => number;
  /** Signals `workflowId`; resolves false (or rejects) when no such workflow takes it. */
  deliver(workflowId: string, notice: WebhookNotice): Promise<boolean>;
}

/** A running relay. */
export interface WebhookRelay {
  /** Base URL to give the activities as `webhookBaseUrl`. */
  readonly url: string;
  /** Webhooks verified and handed on, and rejected (bad signature, unknown task or workflow, bad body). */
  readonly counts: { verified: number; rejected: number };
  close(): Promise<void>;
}

/** Starts a relay on a free loopback port. */
export async function startWebhookRelay(options: WebhookRelayOptions): Promise<WebhookRelay> {
  const counts = { verified: 0, rejected: 0 };
  const server: Server = createServer((request, response) => {
    readAll(request)
      .then((raw) => relay(options, counts, request, raw, response))
      .catch(() => {
        counts.rejected++;
        if (!response.headersSent) response.writeHead(400);
        response.end();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function relay(
  options: WebhookRelayOptions,
  counts: WebhookRelay['counts'],
  request: IncomingMessage,
  raw: Buffer,
  response: ServerResponse,
): Promise<void> {
  const body = JSON.parse(raw.toString('utf8')) as { deepresearch_id?: unknown; batch_id?: unknown; status?: unknown };
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const notice: WebhookNotice = { deepresearchId: text(body.deepresearch_id), batchId: text(body.batch_id), status: text(body.status) };
  const workflowId = decodeURIComponent(request.url?.split('/').pop() ?? '');
  const secret = await options.secrets.get(notice.deepresearchId ?? notice.batchId ?? '');
  const verdict = secret
    ? verifyWebhookSignature({
        secret,
        signature: request.headers['x-webhook-signature'],
        timestamp: request.headers['x-webhook-timestamp'],
        body: raw,
        now: options.now(),
      })
    : { ok: false };
  const delivered = verdict.ok && workflowId !== '' && (await options.deliver(workflowId, notice).catch(() => false));
  if (!delivered) {
    counts.rejected++;
    response.writeHead(401).end();
    return;
  }
  counts.verified++;
  response.writeHead(204).end();
}

function readAll(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}
