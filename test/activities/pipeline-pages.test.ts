import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalArtifactStore, type ArtifactData, type ArtifactStore } from '../../src/activities';
import { itemRecordKey } from '../../src/activities/pipeline-items';
import { MAX_PAGE_BYTES, PLAN_CONCURRENCY, readPipelinePage, type ReadPipelinePageInput } from '../../src/activities/pipeline-pages';
import type { ResearchClient } from '../../src/api';
import type { ArtifactRef } from '../../src/domain/artifacts';
import { itemSource, parsePipelineDefinition, resolveParameters } from '../../src/pipelines';
import { startResearchHarness, type ResearchHarness } from '../support/research-harness';

/** A local store whose item record look-ups (a read of `items/<key>.json`) take a while, counting how many run at once. */
class SlowLookups implements ArtifactStore {
  running = 0;
  mostAtOnce = 0;
  lookups = 0;

  constructor(private readonly inner: ArtifactStore) {}

  stat(key: string): Promise<ArtifactRef | undefined> {
    return this.inner.stat(key);
  }

  async get(key: string): Promise<Uint8Array> {
    if (!key.includes('/items/')) return this.inner.get(key);
    this.lookups += 1;
    this.running += 1;
    this.mostAtOnce = Math.max(this.mostAtOnce, this.running);
    try {
      // Later items answer sooner: a plan taken in the order it ends would come out shuffled.
      const index = Number(/t(\d+)\.json$/.exec(key)?.[1] ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 2 + ((97 * index) % 7)));
      return await this.inner.get(key);
    } finally {
      this.running -= 1;
    }
  }

  put(key: string, data: ArtifactData, contentType: string): Promise<ArtifactRef> {
    return this.inner.put(key, data, contentType);
  }

  list(prefix: string): Promise<ArtifactRef[]> {
    return this.inner.list(prefix);
  }

  keys(prefix: string): Promise<string[]> {
    return this.inner.keys(prefix);
  }
}

/** Search steps plan without the service. */
const noService = {} as ResearchClient;
const prefix = 'pipelines/pages/r1';

function pageInput(yaml: string, rest: Partial<ReadPipelinePageInput> & { limit: number }): ReadPipelinePageInput {
  const loaded = parsePipelineDefinition(yaml, 'pages.yaml');
  return {
    definition: loaded.definition,
    source: itemSource(loaded),
    params: resolveParameters(loaded.definition.parameters, {}, { textValues: true }),
    runKey: 'r1',
    runDate: '2026-11-25',
    prefix,
    ...rest,
  };
}

const searchItems = (count: number, queryBytes = 0) => `
name: pages
input:
  items: [${Array.from({ length: count }, (_, index) => `{ id: t${index + 1}, tier: ${index % 3 === 2 ? 'C' : 'A'} }`).join(', ')}]
  key: "{{ item.id }}"
  where: { field: item.tier, in: [A] }
step:
  search:
    query: "Facts about {{ item.id }} ${'x'.repeat(queryBytes)}"
    max_num_results: 1
concurrency: 10
budget_usd: 100
`;

describe('readPipelinePage plans its items several at once', () => {
  let dir: string;
  let store: SlowLookups;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rp-pages-'));
    store = new SlowLookups(new LocalArtifactStore(dir));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('returns the items in input order, `where:` and `skip` applied, earlier completed ones marked, with at most PLAN_CONCURRENCY look-ups at once', async () => {
    // t4 and t8 completed in an earlier execution of the run (`--resume`).
    for (const key of ['t4', 't8'])
      await store.put(
        itemRecordKey(prefix, key),
        JSON.stringify({ key, status: 'completed', costUsd: 0.01, attempts: 1, index: 0, finishedAt: 1 }),
        'application/json',
      );
    const page = await readPipelinePage({ api: noService, store }, pageInput(searchItems(90), { limit: 90, skip: 2 }));
    // Rows of tier C (every third) are left out; `skip` counts the kept rows.
    const kept = Array.from({ length: 90 }, (_, index) => index)
      .filter((index) => index % 3 !== 2)
      .map((index) => `t${index + 1}`);
    expect(page.items.map((item) => item.key)).toEqual(kept.slice(2));
    expect(page.items.map((item) => item.index)).toEqual(kept.slice(2).map((key) => Number(key.slice(1)) - 1));
    expect(page.items.filter((item) => item.done).map((item) => item.key)).toEqual(['t4', 't8']);
    expect(page.items.find((item) => item.key === 't5')).toMatchObject({ request: { kind: 'search' }, reserveUsd: expect.any(Number) });
    expect(page).toMatchObject({ done: true, cursor: { index: 90 } });
    expect(store.mostAtOnce).toBeGreaterThan(1);
    expect(store.mostAtOnce).toBeLessThanOrEqual(PLAN_CONCURRENCY);
  });

  it('a record the store fails to read fails the page read (retried), rather than planning its completed item to be paid again', async () => {
    await store.put(
      itemRecordKey(prefix, 't1'),
      JSON.stringify({ key: 't1', status: 'completed', costUsd: 0.01, attempts: 1, index: 0, finishedAt: 1 }),
      'application/json',
    );
    const failing: ArtifactStore = Object.assign(Object.create(store) as SlowLookups, {
      get: async (key: string) => {
        if (key === itemRecordKey(prefix, 't1')) throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
        return store.get(key);
      },
    });
    await expect(readPipelinePage({ api: noService, store: failing }, pageInput(searchItems(3), { limit: 3 }))).rejects.toThrow('EIO');
    // A record that is there but not JSON (cut short) counts as none: the item is planned to run.
    await store.put(itemRecordKey(prefix, 't1'), '{"key": "t1", "sta', 'application/json');
    const page = await readPipelinePage({ api: noService, store }, pageInput(searchItems(3), { limit: 3 }));
    expect(page.items.find((item) => item.key === 't1')).toMatchObject({ request: { kind: 'search' } });
    expect(page.items.find((item) => item.key === 't1')?.done).toBeUndefined();
  });

  it('stops before the page would pass its byte budget, with the cursor just past the last item returned, and plans little past it', async () => {
    // Each item carries about 60 KB: a page holds 8 of them.
    const input = pageInput(searchItems(60, 60 * 1024), { limit: 60 });
    const page = await readPipelinePage({ api: noService, store }, input);
    const perItem = Buffer.byteLength(JSON.stringify(page.items[0]));
    expect(page.items.length).toBe(Math.floor(MAX_PAGE_BYTES / perItem));
    expect(page.done).toBe(false);
    const last = page.items[page.items.length - 1]!;
    expect(page.cursor.index).toBe(last.index + 1);
    // The next page starts right after the last item returned.
    const next = await readPipelinePage({ api: noService, store }, { ...input, cursor: page.cursor });
    expect(next.items[0]!.index).toBe(page.cursor.index + (page.cursor.index % 3 === 2 ? 1 : 0));
    // Items past the cut are planned at most a window's worth ahead, never the whole input.
    expect(store.lookups).toBeLessThanOrEqual(2 * (page.items.length + PLAN_CONCURRENCY) + 1);
  });
});

describe('readPipelinePage: service workflow items', () => {
  let h: ResearchHarness;
  let dir: string;
  beforeEach(async () => {
    h = await startResearchHarness();
    dir = await mkdtemp(path.join(tmpdir(), 'rp-pages-'));
  });
  afterEach(async () => {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('asks for each distinct preview once while items are planned together', async () => {
    const yaml = `
name: scans
input:
  items: [${Array.from({ length: 40 }, (_, index) => `{ id: c${index + 1}, market: m${index % 3} }`).join(', ')}]
  key: "{{ item.id }}"
step:
  workflow:
    workflow_id: competitor-scan
    params:
      company: "Acme"
      market: "{{ item.market }}"
concurrency: 4
budget_usd: 1000
`;
    const page = await readPipelinePage({ api: h.client, store: new LocalArtifactStore(dir) }, pageInput(yaml, { limit: 40 }));
    expect(page.items.map((item) => item.key)).toEqual(Array.from({ length: 40 }, (_, index) => `c${index + 1}`));
    expect(page.items.every((item) => item.problem === undefined && item.request?.kind === 'workflow' && item.reserveUsd > 0)).toBe(true);
    const previews = Object.values(h.emulator.stats.snapshot().requests['workflows.preview'] ?? {}).reduce((sum, count) => sum + count, 0);
    expect(previews).toBe(3);
  });
});
