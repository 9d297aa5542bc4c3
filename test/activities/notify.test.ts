import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { ResearchClient } from '../../src/api';
import { createActivities, InMemoryWebhookSecretStore, LocalArtifactStore } from '../../src/activities';
import type { RunEvent } from '../../src/domain/notifications';
import { notifySecret, startReceiver } from '../support/notify-receiver';

const api = new ResearchClient({ apiKey: 'unused', baseUrl: 'http://127.0.0.1:1/v1' });
afterAll(() => api.close());

function event(type: RunEvent['type'], changes?: { key: string }): RunEvent {
  return {
    id: `evt_test_${type.replace(/\W/g, '')}_0`,
    type,
    timestamp: '2026-01-01T00:00:00.000Z',
    data: {
      pipeline: 'scan',
      runKey: 'r-1',
      workflowId: 'pipeline-run/scan/r-1',
      phase: 'completed',
      counts: { read: 1, completed: 1, failed: 0, cancelled: 0, reused: 0, skipped: 0 },
      ledger: { budgetUsd: 1, spentUsd: 0.1 },
      ...(changes
        ? {
            outputs: {
              prefix: 'pipelines/scan/r-1',
              folderUri: 'file:///x',
              files: [],
              changes: { key: changes.key, uri: 'file:///x', bytes: 1, sha256: 'x', contentType: 'text/markdown' },
            },
          }
        : {}),
    },
  };
}

describe('notifyRun', () => {
  it('tells a change report only when something changed, signed, with links to the intake', async () => {
    const secret = notifySecret();
    const receiver = await startReceiver(secret);
    const store = new LocalArtifactStore(await mkdtemp(path.join(tmpdir(), 'rp-notify-')));
    const report = (changed: number) => ({
      previousRun: 'r-0',
      currentRun: 'r-1',
      added: [],
      removed: [],
      changed: Array.from({ length: changed }, (_, n) => ({ key: `k${n}`, fields: [] })),
      unchanged: 3,
    });
    const { notifyRun } = createActivities({
      api,
      store,
      secrets: new InMemoryWebhookSecretStore(),
      notifySecret: secret,
      webhookBaseUrl: 'https://intake.example.com',
    });
    try {
      await store.put('pipelines/scan/r-1/outputs/changes.json', JSON.stringify(report(0)), 'application/json');
      expect(await notifyRun({ url: `${receiver.url}/hook`, event: event('run.changes_found', { key: 'pipelines/scan/r-1/outputs/changes.md' }) })).toEqual({
        sent: false,
      });
      expect(receiver.deliveries).toHaveLength(0);
      await store.put('pipelines/scan/r-1/outputs/changes.json', JSON.stringify(report(2)), 'application/json');
      expect(await notifyRun({ url: `${receiver.url}/hook`, event: event('run.changes_found', { key: 'pipelines/scan/r-1/outputs/changes.md' }) })).toEqual({
        sent: true,
        status: 204,
      });
      const [delivery] = receiver.deliveries;
      expect(delivery!.verified).toBe(true);
      expect(delivery!.event!.data).toMatchObject({
        changes: { added: 0, removed: 0, changed: 2, unchanged: 3 },
        links: { items: 'https://intake.example.com/pipelines/scan/runs/r-1/items' },
      });
      expect(delivery!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    } finally {
      await receiver.close();
    }
  });

  it('refuses without retry when the worker has no secret, and stops on 410 Gone', async () => {
    const store = new LocalArtifactStore(await mkdtemp(path.join(tmpdir(), 'rp-notify-')));
    const bare = createActivities({ api, store, secrets: new InMemoryWebhookSecretStore() });
    const refusal = await bare.notifyRun({ url: 'https://hooks.example.com/x', event: event('run.completed') }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApplicationFailure);
    expect(refusal).toMatchObject({ nonRetryable: true, message: expect.stringContaining('NOTIFY_SECRET') });
    const { createServer } = await import('node:http');
    const gone = createServer((_request, response) => {
      response.statusCode = 410;
      response.end();
    });
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const { port } = gone.address() as { port: number };
    const { notifyRun } = createActivities({ api, store, secrets: new InMemoryWebhookSecretStore(), notifySecret: notifySecret() });
    expect(await notifyRun({ url: `http://127.0.0.1:${port}/x`, event: event('run.completed') })).toEqual({ sent: false, status: 410 });
    await new Promise<void>((resolve) => gone.close(() => resolve()));
  });
});
