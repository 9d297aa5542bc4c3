import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalArtifactStore } from '../../src/activities';
import { markLatestRun, writeChangeReport } from '../../src/activities/pipeline-change-report';
import { itemRecordKey, itemResultKey } from '../../src/activities/pipeline-items';
import type { ComparableItem } from '../../src/pipelines/change-report';
import { storeCompletedItems, watchedStore } from '../support/watched-store';

// The change report reads the previous run's items back from the store: each record and result once,
// a few at a time, whatever the run's size.

let dir: string;
let store: LocalArtifactStore;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rp-changes-'));
  store = new LocalArtifactStore(dir);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

test("the previous run's 120 items are read once each (record and result), 16 at a time, and compared", async () => {
  const previous = 'pipelines/news/runs/r1';
  const keys = await storeCompletedItems(store, previous, 120);
  await markLatestRun(store, 'news', { runKey: 'r1', prefix: previous });
  // This run: co-000 changed its headcount, co-119 is gone, co-new is new; the rest are as before.
  const current = new Map<string, ComparableItem>(keys.slice(0, 119).map((key, index) => [key, { status: 'completed', output: { headcount: index } }]));
  current.set('co-000', { status: 'completed', output: { headcount: 5 } });
  current.set('co-new', { status: 'completed', output: { headcount: 1 } });
  const watched = watchedStore(store);
  const ref = await writeChangeReport(watched.store, { pipeline: 'news', runKey: 'r2', prefix: 'pipelines/news/runs/r2' }, current);
  expect(ref?.key).toBe('pipelines/news/runs/r2/outputs/changes.md');
  const report = JSON.parse(Buffer.from(await store.get('pipelines/news/runs/r2/outputs/changes.json')).toString('utf8'));
  expect(report).toMatchObject({ previousRun: 'r1', currentRun: 'r2', added: ['co-new'], removed: ['co-119'], unchanged: 118 });
  expect(report.changed).toEqual([{ key: 'co-000', fields: [{ path: 'output.headcount', before: 0, after: 5 }] }]);
  for (const key of keys) {
    expect(watched.reads.get(itemRecordKey(previous, key))).toBe(1);
    expect(watched.reads.get(itemResultKey(previous, key))).toBe(1);
  }
  // Only the pointer to the previous run is described; the items are listed by key and read.
  expect(watched.counts.described).toBeLessThanOrEqual(1);
  expect(watched.counts.mostRecordReadsAtOnce).toBeGreaterThan(1);
  expect(watched.counts.mostRecordReadsAtOnce).toBeLessThanOrEqual(16);
});
