import { ApplicationFailure } from '@temporalio/common';
import { Webhook } from 'standardwebhooks';
import { request } from 'undici';
import { webhookUrlProblem } from '../api';
import type { ChangeReport } from '../pipelines/change-report';
import type { NotifyRunInput, NotifyRunResult, RunEvent } from '../domain/notifications';
import { FailureType } from '../domain/failures';
import { activityContext, attemptBudgetMs } from './context';
import type { ActivityDeps } from './deps';
import type { ArtifactStore } from './store';

/** Longest wait for a receiver's answer in one attempt (the attempt's own limit may cut it shorter). */
const RECEIVER_TIMEOUT_MS = 15_000;

/** Links a receiver can follow: the intake's results routes when the worker knows the intake's public URL. */
export function runLinks(intakeUrl: string | undefined, pipeline: string, runKey: string): Record<string, string> | undefined {
  if (!intakeUrl) return undefined;
  const run = `${intakeUrl.replace(/\/+$/, '')}/pipelines/${encodeURIComponent(pipeline)}/runs/${encodeURIComponent(runKey)}`;
  return { status: run, items: `${run}/items`, outputs: `${run}/outputs` };
}

/** The change report's counts, or undefined when the run kept none (or it cannot be read). */
async function changeCounts(
  store: ArtifactStore,
  event: RunEvent,
): Promise<{ added: number; removed: number; changed: number; unchanged: number } | undefined> {
  const ref = event.data.outputs?.changes;
  if (!ref) return undefined;
  const report = JSON.parse(Buffer.from(await store.get(ref.key.replace(/\.md$/, '.json'))).toString('utf8')) as ChangeReport;
  return { added: report.added.length, removed: report.removed.length, changed: report.changed.length, unchanged: report.unchanged };
}

/**
 * The signed body and headers of one delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`). The id is the event's, the same on
 * every retry, so a receiver drops a repeat; the timestamp is the attempt's, so a receiver's freshness
 * check holds on a late retry.
 */
export function signedDelivery(secret: string, event: object & { id: string }, now: Date): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(event);
  const timestamp = Math.floor(now.getTime() / 1000);
  const signature = new Webhook(secret).sign(event.id, new Date(timestamp * 1000), body);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
      'user-agent': 'research-pipelines-notify/1',
    },
  };
}

/** `notifyRun`: POSTs one run event to one receiver; a failed delivery throws, and Temporal retries it with backoff. */
export function notifyActivities(deps: ActivityDeps) {
  return {
    async notifyRun(input: NotifyRunInput): Promise<NotifyRunResult> {
      const secret = deps.notifySecret;
      if (!secret)
        throw ApplicationFailure.create({
          type: FailureType.DeliveryNotConfigured,
          nonRetryable: true,
          message: 'notifications are not sent: the worker has no NOTIFY_SECRET to sign them with (whsec_ followed by base64 random bytes)',
        });
      const problem = webhookUrlProblem(input.url);
      if (problem) throw ApplicationFailure.create({ type: FailureType.DeliveryNotConfigured, nonRetryable: true, message: `notify URL ${problem}` });
      const { event } = input;
      let extra: Record<string, unknown> = {};
      if (event.type === 'run.changes_found') {
        const changes = await changeCounts(deps.store, event);
        if (!changes || changes.added + changes.removed + changes.changed === 0) return { sent: false };
        extra = { changes };
      }
      const links = runLinks(deps.webhookBaseUrl, event.data.pipeline, event.data.runKey);
      const delivered = { ...event, data: { ...event.data, ...extra, ...(links ? { links } : {}) } };
      const { body, headers } = signedDelivery(secret, delivered, new Date((deps.now ?? Date.now)()));
      const signal = activityContext()?.cancellationSignal;
      const timeout = Math.min(RECEIVER_TIMEOUT_MS, attemptBudgetMs() ?? RECEIVER_TIMEOUT_MS);
      const response = await request(input.url, {
        method: 'POST',
        body,
        headers,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        ...(signal ? { signal } : {}),
      });
      await response.body.dump();
      const status = response.statusCode;
      if (status >= 200 && status < 300) return { sent: true, status };
      // 410 Gone: the receiver asks for no more deliveries (Standard Webhooks); the run goes on.
      if (status === 410) return { sent: false, status };
      throw ApplicationFailure.create({
        type: 'NotifyRefused',
        message: `the receiver answered ${status} to ${event.type} (${event.id}); retried with backoff`,
      });
    },
  };
}
