import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { csvText as wholeCsv } from '../../src/activities/csv-text';
import { eachItem, VIEWS_READ_AHEAD } from '../../src/activities/pipeline-item-views';
import { itemRecordKey, itemResultKey } from '../../src/activities/pipeline-items';
import { writePipelineOutputs } from '../../src/activities/pipeline-outputs';
import { LocalArtifactStore, type ArtifactData, type ArtifactStore } from '../../src/activities/store';
import type { ArtifactRef } from '../../src/domain/artifacts';
import type { PipelineItemRecord } from '../../src/domain/pipeline-types';
import { itemSource, parsePipelineDefinition } from '../../src/pipelines';

/** A store that passes everything to a local one, noting what was asked of it; `delayMs` slows each get. */
class WatchedStore implements ArtifactStore {
  /** Each put: its key, whether its data came as a stream, and the largest chunk a stream gave. */
  readonly puts: Array<{ key: string; streamed: boolean; largestChunk: number; bytes: number }> = [];
  readonly statted: string[] = [];
  getsInFlight = 0;
  mostGetsInFlight = 0;
  failPut?: (key: string) => boolean;

  constructor(
    private readonly inner: ArtifactStore,
    private readonly delayMs = 0,
  ) {}

  async put(key: string, data: ArtifactData, contentType: string): Promise<ArtifactRef> {
    if (this.failPut?.(key)) throw new Error(`no space left on device (injected, ${key})`);
    if (typeof data === 'string' || data instanceof Uint8Array) {
      this.puts.push({ key, streamed: false, largestChunk: Buffer.byteLength(data), bytes: Buffer.byteLength(data) });
      return this.inner.put(key, data, contentType);
    }
    const noted = { key, streamed: true, largestChunk: 0, bytes: 0 };
    this.puts.push(noted);
    async function* watched(): AsyncGenerator<Uint8Array> {
      for await (const chunk of data as AsyncIterable<Uint8Array>) {
        noted.largestChunk = Math.max(noted.largestChunk, chunk.byteLength);
        noted.bytes += chunk.byteLength;
        yield chunk;
      }
    }
    return this.inner.put(key, watched(), contentType);
  }

  async get(key: string): Promise<Uint8Array> {
    this.getsInFlight += 1;
    this.mostGetsInFlight = Math.max(this.mostGetsInFlight, this.getsInFlight);
    try {
      if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      return await this.inner.get(key);
    } finally {
      this.getsInFlight -= 1;
    }
  }

  stat(key: string): Promise<ArtifactRef | undefined> {
    this.statted.push(key);
    return this.inner.stat(key);
  }

  list(prefix: string): Promise<ArtifactRef[]> {
    return this.inner.list(prefix);
  }

  keys(prefix: string): Promise<string[]> {
    return this.inner.keys(prefix);
  }
}

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

describe("a run's output files, read ahead and streamed", () => {
  let dir: string;
  let spoolDir: string;
  let local: LocalArtifactStore;
  const savedTmpdir = process.env.TMPDIR;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rp-outputs-scale-'));
    // The outputs' temporary files go under TMPDIR (os.tmpdir()): a folder of this test's own, to see them removed.
    spoolDir = await mkdtemp(path.join(tmpdir(), 'rp-outputs-spool-test-'));
    process.env.TMPDIR = spoolDir;
    local = new LocalArtifactStore(path.join(dir, 'store'));
  });
  afterEach(async () => {
    if (savedTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmpdir;
    await rm(dir, { recursive: true, force: true });
    await rm(spoolDir, { recursive: true, force: true });
  });

  const prefix = 'pipelines/hq/r1';

  async function writeRecord(store: ArtifactStore, record: Omit<PipelineItemRecord, 'finishedAt' | 'attempts'> & { attempts?: number }, result?: object) {
    const stored = result
      ? await store.put(itemResultKey(prefix, record.key), JSON.stringify({ key: record.key, kind: 'answer', ...result }), 'application/json')
      : undefined;
    const item: PipelineItemRecord = { attempts: 1, finishedAt: 0, ...record, ...(stored ? { result: stored } : {}) };
    await store.put(itemRecordKey(prefix, record.key), JSON.stringify(item), 'application/json');
  }

  /** A JSONL file and a CSV of each item's company and answer. */
  const JSONL_AND_CSV = `outputs:
  - format: jsonl
  - format: csv
    columns:
      company: "{{ item.name }}"
      answer: "{{ result.output }}"
`;

  /** A run of `companies` (an items list) with an Answer step and the given outputs. */
  function runOf(items: string, outputs: string) {
    const loaded = parsePipelineDefinition(
      `name: hq
budget_usd: 1
input:
  ${items}
  key: "{{ item.domain | slug }}"
step:
  answer:
    query: "Where is {{ item.name }} based?"
${outputs}`,
      path.join(dir, 'hq.yaml'),
    );
    return {
      definition: loaded.definition,
      source: itemSource(loaded),
      params: {},
      runKey: 'r1',
      runDate: '2026-11-25',
      prefix,
      ledger: { spentUsd: 0.012, budgetUsd: 1 },
      completed: true,
    };
  }

  it('writes, byte for byte, the JSONL, CSV and digest of completed, failed and not-started items', async () => {
    await writeRecord(
      local,
      { key: 'acme-example', index: 0, status: 'completed', costUsd: 0.012 },
      { output: 'Acme is based in "Oslo",\nNorway.', sources: [{ title: 'Acme about', url: 'https://acme.example/about' }], costUsd: 0.012 },
    );
    await writeRecord(local, { key: 'beta-example', index: 1, status: 'failed', attempts: 2, costUsd: 0, error: 'the service refused the request (422)' });
    // gamma-example has no record: it never started.
    const run = runOf(
      'items: [{ name: Acme, domain: acme.example }, { name: "=Beta, Inc", domain: beta.example }, { name: Gamma, domain: gamma.example }]',
      `${JSONL_AND_CSV}  - format: markdown
`,
    );
    const outputs = await writePipelineOutputs(local, run);
    const texts = await Promise.all(outputs.files.map(async (file) => readFile(fileURLToPath(file.uri), 'utf8')));
    const report = `${pathToFileURL(path.join(dir, 'store')).href}/pipelines/hq/r1/results/acme-example.json`;
    expect(outputs.files.map((file) => file.key)).toEqual(['results.jsonl', 'results.csv', 'results.md'].map((name) => `${prefix}/outputs/${name}`));
    expect(texts[0]).toBe(
      `{"key":"acme-example","index":0,"status":"completed","cost_usd":0.012,"attempts":1,"item":{"name":"Acme","domain":"acme.example"},"output":"Acme is based in \\"Oslo\\",\\nNorway.","report":"${report}"}\n` +
        '{"key":"beta-example","index":1,"status":"failed","cost_usd":0,"attempts":2,"error":"the service refused the request (422)","item":{"name":"=Beta, Inc","domain":"beta.example"}}\n' +
        '{"key":"gamma-example","index":2,"status":"not_started","cost_usd":0,"attempts":0,"item":{"name":"Gamma","domain":"gamma.example"}}\n',
    );
    expect(texts[1]).toBe('company,answer,cost_usd,sources\nAcme,"Acme is based in ""Oslo"",\nNorway.",0.012,1\n"\'=Beta, Inc",,0,0\nGamma,,0,0\n');
    expect(texts[2]).toBe(
      '# hq: run r1\n\n**3 items**: 1 completed, 1 failed, 0 cancelled, 1 not started.\n\n' +
        '**Cost**: 0.0120 of 1.00 USD spent, 0.0120 USD per completed item on average. **Sources cited**: 1.\n\n## Items\n\n' +
        '### 1. acme-example\n\n*completed* · 0.0120 USD\n\n- **company**: Acme\n\n> Acme is based in "Oslo",\n> Norway.\n\n' +
        '- **answer**: Acme is based in "Oslo", Norway.\n\nSources (1): [Acme about](<https://acme.example/about>)\n\n' +
        '### 2. beta-example\n\n*failed* · 0.0000 USD\n\n- **company**: =Beta, Inc\n\n**Error**: the service refused the request (422)\n\nSources: none\n\n' +
        '### 3. gamma-example\n\n*not started* · 0.0000 USD\n\n- **company**: Gamma\n\nSources: none\n',
    );
    // Each reference describes the bytes written, with the type the format gives.
    outputs.files.forEach((file, index) => {
      expect(file).toMatchObject({ bytes: Buffer.byteLength(texts[index]!), sha256: sha256(texts[index]!) });
    });
    expect(outputs.files.map((file) => file.contentType)).toEqual(['application/x-ndjson', 'text/csv', 'text/markdown; charset=utf-8']);
    expect(await readdir(spoolDir)).toEqual([]);
  });

  it('hands a large run’s JSONL and CSV to the store as streams of small chunks, and removes its temporary files', async () => {
    const count = 600;
    const answer = (index: number) => `Answer ${index}: ${'the firm is based in a city by the sea, '.repeat(100)}`;
    const rows = Array.from({ length: count }, (_, index) => JSON.stringify({ name: `Firm ${index}`, domain: `f${index}.example` })).join('\n');
    await (await import('node:fs/promises')).writeFile(path.join(dir, 'items.jsonl'), `${rows}\n`);
    for (let index = 0; index < count; index++)
      await writeRecord(
        local,
        { key: `f${index}-example`, index, status: 'completed', costUsd: 0.001 },
        { output: answer(index), sources: [], costUsd: 0.001 },
      );
    const store = new WatchedStore(local);
    const outputs = await writePipelineOutputs(store, runOf('jsonl: items.jsonl', JSONL_AND_CSV));
    const [jsonl, csv] = store.puts.filter((put) => put.key.includes('/outputs/'));
    // Both files are megabytes, yet no more than one read-back chunk (64 KiB) was handed over at once.
    for (const put of [jsonl!, csv!]) {
      expect(put.streamed).toBe(true);
      expect(put.bytes).toBeGreaterThan(2_000_000);
      expect(put.largestChunk).toBeLessThanOrEqual(64 * 1024);
    }
    const lines = (await readFile(fileURLToPath(outputs.files[0]!.uri), 'utf8')).split('\n');
    expect(lines).toHaveLength(count + 1);
    expect((JSON.parse(lines[count - 1]!) as { output: string }).output).toBe(answer(count - 1));
    const csvText = await readFile(fileURLToPath(outputs.files[1]!.uri), 'utf8');
    // What one rendering of all the rows gives (the file used to be written so).
    expect(csvText).toBe(
      wholeCsv(
        ['company', 'answer', 'cost_usd', 'sources'],
        Array.from({ length: count }, (_, index) => [`Firm ${index}`, answer(index), '0.001', '0']),
        { escapeFormulas: true },
      ),
    );
    expect(outputs.files[1]).toMatchObject({ bytes: Buffer.byteLength(csvText), sha256: sha256(csvText) });
    expect(await readdir(spoolDir)).toEqual([]);
  });

  it('removes its temporary files when the store refuses an output file, and writes nothing after it', async () => {
    await writeRecord(local, { key: 'acme-example', index: 0, status: 'completed', costUsd: 0 }, { output: 'Oslo', sources: [] });
    const store = new WatchedStore(local);
    store.failPut = (key) => key.endsWith('/results.csv');
    const run = runOf(
      'items: [{ name: Acme, domain: acme.example }]',
      `outputs:
  - format: jsonl
  - format: csv
    columns:
      company: "{{ item.name }}"
  - format: markdown
`,
    );
    await expect(writePipelineOutputs(store, run)).rejects.toThrow('no space left on device (injected');
    expect(store.puts.map((put) => put.key.split('/').pop())).toEqual(['results.jsonl']);
    expect(await readdir(spoolDir)).toEqual([]);
  });

  it('reads item views a bounded number at a time ahead of the visitor, visited in input order, with no stat per item', async () => {
    const count = 120;
    const rows = Array.from({ length: count }, (_, index) => JSON.stringify({ name: `Firm ${index}`, domain: `f${index}.example` })).join('\n');
    await (await import('node:fs/promises')).writeFile(path.join(dir, 'items.jsonl'), `${rows}\n`);
    // Every third item never started (no record); the others completed with a stored answer.
    for (let index = 0; index < count; index++)
      if (index % 3 !== 2) await writeRecord(local, { key: `f${index}-example`, index, status: 'completed', costUsd: 0 }, { output: `Answer ${index}` });
    const store = new WatchedStore(local, 5);
    const visited: Array<{ index: number; status: string; output: unknown }> = [];
    await eachItem(store, runOf('jsonl: items.jsonl', ''), async (view) => {
      visited.push({ index: view.index, status: view.status, output: view.output });
      await new Promise((resolve) => setTimeout(resolve, 1));
    });
    expect(visited).toEqual(
      Array.from({ length: count }, (_, index) =>
        index % 3 === 2 ? { index, status: 'not_started', output: undefined } : { index, status: 'completed', output: `Answer ${index}` },
      ),
    );
    expect(store.mostGetsInFlight).toBeGreaterThan(1);
    expect(store.mostGetsInFlight).toBeLessThanOrEqual(VIEWS_READ_AHEAD);
    expect(store.statted).toEqual([]);
  });

  it('a record that cannot be read fails the outputs with its error, however many reads ahead fail too', async () => {
    const count = 60;
    const rows = Array.from({ length: count }, (_, index) => JSON.stringify({ name: `Firm ${index}`, domain: `f${index}.example` })).join('\n');
    await (await import('node:fs/promises')).writeFile(path.join(dir, 'items.jsonl'), `${rows}\n`);
    for (let index = 0; index < count; index++) {
      if (index >= 5 && index < 30) await local.put(itemRecordKey(prefix, `f${index}-example`), '{ not json', 'application/json');
      else await writeRecord(local, { key: `f${index}-example`, index, status: 'failed', costUsd: 0, error: 'refused' });
    }
    const seen: number[] = [];
    const store = new WatchedStore(local, 2);
    // The reads ahead of the failing one fail as well, after it was thrown: none may go unhandled (that would end the worker's process).
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await expect(eachItem(store, runOf('jsonl: items.jsonl', ''), (view) => void seen.push(view.index))).rejects.toThrow(SyntaxError);
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    await expect(writePipelineOutputs(store, runOf('jsonl: items.jsonl', ''))).rejects.toThrow(SyntaxError);
    expect(await readdir(spoolDir)).toEqual([]);
  });
});
