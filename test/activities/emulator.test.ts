import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { redactingTestLogger } from '../support/test-logger';
import { createActivities, InMemoryWebhookSecretStore, LocalArtifactStore } from '../../src/activities';
import { FailureType } from '../../src/domain/failures';
import { minutes, startResearchHarness, type ResearchHarness } from '../support/research-harness';
import { ActivityTestEnvironment } from './helpers';

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const QUERY = 'Heat pump makers in Europe: market shares and outlook';

let h: ResearchHarness;
let dir: string;
let store: LocalArtifactStore;
let activities: ReturnType<typeof createActivities>;
const env = (attempt = 1) =>
  new ActivityTestEnvironment({ attempt, workflowExecution: { workflowId: 'wf-emu', runId: 'r' } }, { logger: redactingTestLogger('error') });

beforeEach(async () => {
  h = await startResearchHarness();
  dir = await mkdtemp(path.join(tmpdir(), 'rp-emu-'));
  store = new LocalArtifactStore(dir);
  activities = createActivities({ api: h.client, store, secrets: new InMemoryWebhookSecretStore() });
});
afterEach(async () => {
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

describe('activities against the emulator', () => {
  test('a retried create adopts the task: the service holds exactly one', async () => {
    const input = { request: { query: QUERY, mode: 'fast' as const }, requestKey: 'emu-key-1' };
    const first = await env().call(activities.createResearchTask, input);
    const second = await env(2).call(activities.createResearchTask, input);
    expect(second).toMatchObject({ deepresearchId: first.deepresearchId, adopted: true });
    expect(h.emulator.stats.snapshot().tasksCreated).toBe(1);
  });

  test('a completed task: the snapshot stays small and every file is stored byte for byte', async () => {
    const created = await env().call(activities.createResearchTask, {
      request: {
        query: QUERY,
        mode: 'fast',
        output_formats: ['markdown', 'pdf'],
        tools: { charts: true },
        deliverables: [{ type: 'csv', description: 'Market shares by maker' }],
      },
      requestKey: 'emu-key-2',
    });
    await h.advance(minutes(10));
    const snapshot = await env().call(activities.getResearchTask, { deepresearchId: created.deepresearchId });
    expect(snapshot.status).toBe('completed');
    expect(snapshot).not.toHaveProperty('output');
    expect(JSON.stringify(snapshot).length).toBeLessThan(1_000);

    const stored = await env().call(activities.storeResearchOutputs, { deepresearchId: created.deepresearchId, keyPrefix: 'research/wf-emu' });
    const task = await h.client.getTask(created.deepresearchId);
    expect(stored.report?.key).toBe('research/wf-emu/report.md');
    expect(Buffer.from(await store.get(stored.report!.key)).toString('utf8')).toBe(task.output);
    expect(stored.sourceCount).toBe(task.sources?.length);
    const downloads = [
      [stored.pdf, task.pdf_url],
      ...stored.deliverables.map((ref, index) => [ref, task.deliverables?.[index]?.url]),
      ...stored.images.map((ref, index) => [ref, task.images?.[index]?.image_url]),
    ] as const;
    expect(stored.deliverables[0]?.key).toMatch(/\.csv$/);
    expect(stored.images.length).toBeGreaterThan(0);
    for (const [ref, url] of downloads) {
      const original = await h.download(String(url));
      expect(ref).toMatchObject({ bytes: original.bytes.length, sha256: sha256(original.bytes) });
    }
  });

  test('cancelling twice: the second call reports the task already ended', async () => {
    const created = await env().call(activities.createResearchTask, { request: { query: QUERY, mode: 'standard' }, requestKey: 'emu-key-3' });
    expect(await env().call(activities.cancelResearchTask, { deepresearchId: created.deepresearchId })).toEqual({ cancelled: true, status: 'cancelled' });
    expect(await env().call(activities.cancelResearchTask, { deepresearchId: created.deepresearchId })).toEqual({ cancelled: false, status: 'cancelled' });
  });

  test('an instruction to a finished task is Refused with the service reason', async () => {
    const created = await env().call(activities.createResearchTask, { request: { query: QUERY, mode: 'fast' }, requestKey: 'emu-key-4' });
    await h.advance(minutes(10));
    await expect(env().call(activities.addResearchInstruction, { deepresearchId: created.deepresearchId, instruction: 'Add Asia' })).rejects.toMatchObject({
      type: FailureType.Refused,
      nonRetryable: true,
      message: expect.stringContaining('completed'),
    });
  });

  test('a batch: a retried add skips the tasks already there, and collecting stores each report', async () => {
    const batch = await env().call(activities.createResearchBatch, { request: { name: 'scan', mode: 'fast' }, requestKey: 'emu-batch-1' });
    const items = ['a', 'b', 'c'].map((id) => ({ id, query: `${QUERY} (${id})` }));
    expect(await env().call(activities.addResearchBatchTasks, { batchId: batch.batchId, tasks: items.slice(0, 2) })).toMatchObject({ added: 2, skipped: 0 });
    expect(await env(2).call(activities.addResearchBatchTasks, { batchId: batch.batchId, tasks: items })).toMatchObject({ added: 1, skipped: 2 });
    await h.advance(minutes(30));
    expect(await env().call(activities.getResearchBatch, { batchId: batch.batchId })).toMatchObject({
      counts: expect.objectContaining({ total: 3, completed: 3 }),
    });
    const page = await env().call(activities.collectResearchBatchPage, { batchId: batch.batchId, keyPrefix: 'batches/emu', pageSize: 10 });
    expect(page.hasMore).toBe(false);
    expect(page.tasks.map((entry) => entry.report?.key).sort()).toEqual(['batches/emu/a/report.md', 'batches/emu/b/report.md', 'batches/emu/c/report.md']);
  });
});
