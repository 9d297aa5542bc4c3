import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { FailureType } from '../../src/domain/failures';
import { ORIGIN, useTestbed, taskBody, type Setup } from './helpers';

const STATUS = { path: '/v1/deepresearch/tasks/dr_1/status', method: 'GET' } as const;
const CDN = 'https://cdn.example.com';
const REPORT = '# EV batteries\n\nFindings with citations [1].\n';
const SOURCES = [
  { title: 'Source one', url: 'https://one.example' },
  { title: 'Source two', url: 'https://two.example' },
];
const PDF = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x37, 0, 1, 2, 3]);
const CSV = 'company,share\nA,0.4\nB,0.6\n';
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 9, 9, 9]);

const completedTask = taskBody({
  status: 'completed',
  output_type: 'markdown',
  output: REPORT,
  sources: SOURCES,
  cost: 0.5,
  completed_at: '2025-01-01T00:10:00Z',
  pdf_url: `${ORIGIN}/v1/files/dr_1/report.pdf`,
  deliverables: [
    {
      id: 'del_1',
      request: 'Market share table',
      type: 'csv',
      status: 'completed',
      title: '../../etc/market share.csv',
      url: `${ORIGIN}/v1/deepresearch/tasks/dr_1/assets/del_1`,
      created_at: 1_735_689_600_000,
    },
  ],
  images: [{ image_id: 'chart 1', image_type: 'chart', title: 'Market share by year', image_url: `${CDN}/img/chart%201.png`, created_at: 1_735_689_600_000 }],
});

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

const testbed = useTestbed();
let t: Setup;
beforeEach(() => {
  t = testbed();
});

function serveFiles(seenKeys: Array<string | undefined> = []) {
  t.service.intercept({ path: '/v1/files/dr_1/report.pdf', method: 'GET' }).reply(200, Buffer.from(PDF), { headers: { 'content-type': 'application/pdf' } });
  t.service.intercept({ path: '/v1/deepresearch/tasks/dr_1/assets/del_1', method: 'GET' }).reply(200, CSV, { headers: { 'content-type': 'text/csv' } });
  t.agent
    .get(CDN)
    .intercept({ path: '/img/chart%201.png', method: 'GET' })
    .reply(
      200,
      (options) => {
        const headers = options.headers as Record<string, string>;
        seenKeys.push(headers['x-api-key']);
        return Buffer.from(PNG);
      },
      { headers: { 'content-type': 'image/png' } },
    );
}

describe('storeResearchOutputs', () => {
  test('stores report, sources, PDF, CSV deliverable and image with correct sizes and hashes', async () => {
    t.service.intercept(STATUS).reply(200, completedTask);
    const cdnKeys: Array<string | undefined> = [];
    serveFiles(cdnKeys);
    const stored = await t.env().call(t.activities.storeResearchOutputs, { deepresearchId: 'dr_1', keyPrefix: 'research/wf-1' });

    expect(stored).toMatchObject({ status: 'completed', sourceCount: 2, cost: 0.5, completedAt: '2025-01-01T00:10:00Z' });
    expect(stored.report).toMatchObject({
      key: 'research/wf-1/report.md',
      bytes: Buffer.byteLength(REPORT),
      sha256: sha256(REPORT),
      contentType: 'text/markdown; charset=utf-8',
    });
    const sourcesJson = `${JSON.stringify(SOURCES, null, 2)}\n`;
    expect(stored.sources).toMatchObject({ key: 'research/wf-1/sources.json', bytes: sourcesJson.length, sha256: sha256(sourcesJson) });
    expect(stored.pdf).toMatchObject({ key: 'research/wf-1/report.pdf', bytes: PDF.length, sha256: sha256(PDF), contentType: 'application/pdf' });
    expect(stored.deliverables).toEqual([
      expect.objectContaining({ key: 'research/wf-1/deliverables/market_share.csv', bytes: CSV.length, sha256: sha256(CSV), contentType: 'text/csv' }),
    ]);
    expect(stored.images).toEqual([expect.objectContaining({ key: 'research/wf-1/images/chart_1.png', bytes: PNG.length, sha256: sha256(PNG) })]);
    expect(stored.missing).toBeUndefined();

    for (const ref of [stored.report, stored.sources, stored.pdf, ...stored.deliverables, ...stored.images]) {
      const onDisk = await readFile(fileURLToPath(ref!.uri));
      expect({ bytes: onDisk.byteLength, sha256: sha256(onDisk) }).toEqual({ bytes: ref!.bytes, sha256: ref!.sha256 });
    }
    // The image lives on another origin: it must not receive the API key.
    expect(cdnKeys).toEqual([undefined]);
  });

  test('heartbeats after each file', async () => {
    t.service.intercept(STATUS).reply(200, completedTask);
    serveFiles();
    const env = t.env();
    const beats: unknown[] = [];
    env.on('heartbeat', (details) => beats.push(details));
    await env.call(t.activities.storeResearchOutputs, { deepresearchId: 'dr_1', keyPrefix: 'research/wf-1' });
    expect(beats).toEqual([{ stored: 1 }, { stored: 2 }, { stored: 3 }, { stored: 4 }, { stored: 5 }]);
  });

  test('a retry resumes after the last heartbeat without downloading stored files again', async () => {
    t.service.intercept(STATUS).reply(200, completedTask);
    t.service.intercept({ path: '/v1/files/dr_1/report.pdf', method: 'GET' }).reply(200, Buffer.from(PDF), { headers: { 'content-type': 'application/pdf' } });
    t.service.intercept({ path: '/v1/deepresearch/tasks/dr_1/assets/del_1', method: 'GET' }).reply(503, 'unavailable');
    const first = t.env();
    const beats: Array<{ stored: number }> = [];
    first.on('heartbeat', (details: { stored: number }) => beats.push(details));
    await expect(first.call(t.activities.storeResearchOutputs, { deepresearchId: 'dr_1', keyPrefix: 'research/wf-1' })).rejects.toMatchObject({
      type: FailureType.ServiceUnavailable,
      nonRetryable: false,
    });
    expect(beats.at(-1)).toEqual({ stored: 3 });

    // Second attempt: only the status, the CSV and the image are served; a second PDF download would fail.
    t.service.intercept(STATUS).reply(200, completedTask);
    t.service.intercept({ path: '/v1/deepresearch/tasks/dr_1/assets/del_1', method: 'GET' }).reply(200, CSV, { headers: { 'content-type': 'text/csv' } });
    t.agent
      .get(CDN)
      .intercept({ path: '/img/chart%201.png', method: 'GET' })
      .reply(200, Buffer.from(PNG), { headers: { 'content-type': 'image/png' } });
    const stored = await t
      .env({ attempt: 2, heartbeatDetails: beats.at(-1) })
      .call(t.activities.storeResearchOutputs, { deepresearchId: 'dr_1', keyPrefix: 'research/wf-1' });
    expect(stored.pdf).toMatchObject({ bytes: PDF.length, sha256: sha256(PDF), contentType: 'application/pdf' });
    expect(stored.deliverables).toHaveLength(1);
    expect(stored.images).toHaveLength(1);
  });

  test('a failed task keeps its partial output and sources', async () => {
    t.service.intercept(STATUS).reply(200, taskBody({ status: 'failed', error: 'budget exceeded', output: '# Partial', sources: SOURCES.slice(0, 1) }));
    const stored = await t.env().call(t.activities.storeResearchOutputs, { deepresearchId: 'dr_1', keyPrefix: 'research/wf-2' });
    expect(stored).toMatchObject({ status: 'failed', error: 'budget exceeded', sourceCount: 1, deliverables: [], images: [] });
    expect(stored.report?.key).toBe('research/wf-2/report.md');
    expect(stored.pdf).toBeUndefined();
  });

  test.each([
    ['json', 'report.json', { summary: 'ok', rows: [1, 2] }, 'application/json'],
    ['toon', 'report.toon', 'rows[2]: 1,2', 'text/plain; charset=utf-8'],
  ])('a %s output is stored as %s', async (outputType, fileName, output, contentType) => {
    t.service.intercept(STATUS).reply(200, taskBody({ status: 'completed', output_type: outputType, output }));
    const stored = await t.env().call(t.activities.storeResearchOutputs, { deepresearchId: 'dr_1', keyPrefix: 'p' });
    expect(stored.report).toMatchObject({ key: `p/${fileName}`, contentType });
  });

  test('a listed file the service no longer has is named in missing; the rest is stored', async () => {
    t.service.intercept(STATUS).reply(
      200,
      taskBody({
        status: 'completed',
        output: REPORT,
        deliverables: [
          { id: 'del_9', request: 'A model', type: 'xlsx', status: 'completed', title: 'Model', url: `${ORIGIN}/v1/x/del_9`, created_at: 1_735_689_600_000 },
        ],
      }),
    );
    t.service.intercept({ path: '/v1/x/del_9', method: 'GET' }).reply(404, { success: false, error: 'asset not found' });
    const stored = await t.env().call(t.activities.storeResearchOutputs, { deepresearchId: 'dr_1', keyPrefix: 'p' });
    expect(stored.report).toBeDefined();
    expect(stored.missing).toEqual([{ name: 'deliverables/Model.xlsx', reason: expect.stringContaining('404') }]);
  });

  test('a key prefix that escapes the store is InvalidInput', async () => {
    await expect(t.env().call(t.activities.storeResearchOutputs, { deepresearchId: 'dr_1', keyPrefix: '../outside' })).rejects.toMatchObject({
      type: FailureType.InvalidInput,
      nonRetryable: true,
    });
  });
});

describe('storeEndedResearchOutputs: the one read after a webhook announcing the end', () => {
  test('stores the outputs of an ended task and returns its status with them, from a single status read', async () => {
    t.service.intercept(STATUS).reply(200, completedTask);
    serveFiles();
    const ended = await t.env().call(t.activities.storeEndedResearchOutputs, { deepresearchId: 'dr_1', keyPrefix: 'research/wf-3' });
    expect(ended.snapshot).toMatchObject({ deepresearchId: 'dr_1', status: 'completed', cost: 0.5, completedAt: '2025-01-01T00:10:00Z' });
    expect(ended.outputs).toMatchObject({ status: 'completed', sourceCount: 2, report: { key: 'research/wf-3/report.md' } });
    // The testbed checks afterwards that every intercept was used once: one status read, then the files.
  });

  test('stores nothing for a task that has not ended, and returns its status', async () => {
    t.service.intercept(STATUS).reply(200, taskBody({ status: 'running', progress: { current_step: 3, total_steps: 10 } }));
    const ended = await t.env().call(t.activities.storeEndedResearchOutputs, { deepresearchId: 'dr_1', keyPrefix: 'research/wf-4' });
    expect(ended).toEqual({ snapshot: expect.objectContaining({ status: 'running', progress: { currentStep: 3, totalSteps: 10 } }) });
    expect(await t.store.list('research/wf-4')).toEqual([]);
  });
});
