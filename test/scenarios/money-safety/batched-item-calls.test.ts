import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalArtifactStore, type ArtifactData, type ArtifactStore } from '../../../src/activities';
import type { ArtifactRef } from '../../../src/domain/artifacts';
import { pipelineRunPrefix } from '../../../src/domain/ids';
import type { PipelineItemRecord, PipelineRunResult } from '../../../src/domain/pipeline-types';
import { cancelledRun } from '../../support/cancelled';
import { describeScenarios, recordHistory } from '../../support/scenario-env';
import { pipelineInput } from '../pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../world';

/**
 * A local store that refuses, once, to keep the result of one item of the first batch of three or more
 * items whose first attempt it sees (its marker names the batch's items): the call was made and charged,
 * the batch's other items completed, and the batch activity fails to be tried again.
 */
class LosesOneBatchResult implements ArtifactStore {
  /** The item whose result was refused, once it was. */
  refused?: string;
  /** The items of the batch it was in. */
  batch?: string[];
  #target?: string;

  constructor(private readonly inner: ArtifactStore) {}

  async put(key: string, data: ArtifactData, contentType: string): Promise<ArtifactRef> {
    if (this.#target === undefined && key.includes('/attempts/~batches/') && key.endsWith('-1.json') && typeof data === 'string') {
      const keys = (JSON.parse(data) as { keys: string[] }).keys;
      if (keys.length >= 3) {
        this.batch = keys;
        this.#target = keys[1];
      }
    }
    if (this.refused === undefined && this.#target !== undefined && key.endsWith(`/results/${this.#target}.json`)) {
      this.refused = this.#target;
      throw new Error('no space left on device (injected)');
    }
    return this.inner.put(key, data, contentType);
  }

  get(key: string): Promise<Uint8Array> {
    return this.inner.get(key);
  }

  stat(key: string): Promise<ArtifactRef | undefined> {
    return this.inner.stat(key);
  }

  list(prefix: string): Promise<ArtifactRef[]> {
    return this.inner.list(prefix);
  }

  keys(prefix: string): Promise<string[]> {
    return this.inner.keys(prefix);
  }
}

const items = Array.from({ length: 12 }, (_, index) => `item-${index + 1}`);

/** Search items in a window of 16 at 1,000 starts a second: batches of up to 4 items share one activity. */
const definition = (name: string, refused?: string) => `
name: ${name}
input:
  items: [${items.map((item) => `{ id: ${item}, source: "${item === refused ? 'collection:missing' : 'web'}" }`).join(', ')}]
  key: "{{ item.id }}"
step:
  search:
    query: "Facts about {{ item.id }}"
    search_type: web
    max_num_results: 2
    max_price: 1
    included_sources: ["{{ item.source }}"]
concurrency: 16
start_rate_per_second: 1000
budget_usd: 50
`;

/** Search charges at the service, per item (each item's query names it). */
function chargesPerItem(world: ResearchWorld): Map<string, number> {
  const counts = new Map<string, number>();
  for (const charge of world.emulator.accounts.chargeLog()) {
    if (charge.reason !== 'search') continue;
    const item = /Facts about (\S+)/.exec(charge.subject ?? '')?.[1] ?? '?';
    counts.set(item, (counts.get(item) ?? 0) + 1);
  }
  return counts;
}

async function recordOf(result: PipelineRunResult, key: string): Promise<PipelineItemRecord> {
  const folder = result.outputs.folderUri.replace(/\/outputs\/?$/, '');
  return JSON.parse(await readFile(fileURLToPath(`${folder}/items/${key}.json`), 'utf8')) as PipelineItemRecord;
}

describeScenarios('money safety: Search items run in batches (one activity for several items)', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('a batch that fails after some of its items completed is tried again without paying any completed item twice', async () => {
    const env = getEnv();
    const store = new LosesOneBatchResult(new LocalArtifactStore(await mkdtemp(path.join(tmpdir(), 'rp-batch-store-'))));
    world = await makeWorld(env, { store, emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(definition('batch-retry'), world, { runKey: 'retry' });
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/batch-retry/retry', args: [input] });
    const result = await handle.result();
    await recordHistory(handle, 'pipeline-batched-items');

    expect(store.refused).toBeDefined();
    expect(result.counts).toMatchObject({ completed: 12, failed: 0 });
    const charges = chargesPerItem(world);
    // The item whose result was lost was charged, so its resend is a second charge, counted as possible;
    // every other item was charged once, those of the failed batch included.
    expect(Object.fromEntries(charges)).toEqual(Object.fromEntries(items.map((item) => [item, item === store.refused ? 2 : 1])));
    const refused = await recordOf(result, store.refused!);
    expect(refused).toMatchObject({ status: 'completed', possiblyChargedUsd: expect.any(Number) });
    expect(refused.possiblyChargedUsd!).toBeGreaterThan(0);
    for (const key of store.batch!.filter((item) => item !== store.refused)) {
      expect(await recordOf(result, key)).toMatchObject({ status: 'completed', attempts: 1 });
      expect((await recordOf(result, key)).possiblyChargedUsd).toBeUndefined();
    }
    const charged = world.emulator.accounts.chargeLog().reduce((sum, charge) => sum + charge.usd, 0);
    expect(result.ledger.spentUsd).toBeGreaterThanOrEqual(charged - 1e-9);
  });

  it('an item the service refuses fails alone: the other items of its batch complete, and nothing is paid for it', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    // One item names a collection the account does not have: the service answers 400 for it alone.
    const input = await pipelineInput(definition('batch-refusal', 'item-6'), world, {
      runKey: 'refusal',
    });
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/batch-refusal/refusal', args: [input] });
    const result = await handle.result();

    expect(result.counts).toMatchObject({ completed: 11, failed: 1 });
    expect(await recordOf(result, 'item-6')).toMatchObject({ status: 'failed', costUsd: 0, error: expect.stringContaining('collection') });
    const charges = chargesPerItem(world);
    expect(charges.get('item-6')).toBeUndefined();
    expect([...charges.values()]).toEqual(items.filter((item) => item !== 'item-6').map(() => 1));
    // It was sent in a batch with others (its batch's marker names them).
    const markers = await world.store.list(`${pipelineRunPrefix('batch-refusal', 'refusal')}/attempts/~batches`);
    const batches = await Promise.all(
      markers.map(async (ref) => (JSON.parse(Buffer.from(await world!.store.get(ref.key)).toString('utf8')) as { keys: string[] }).keys),
    );
    expect(batches.find((keys) => keys.includes('item-6'))?.length).toBeGreaterThan(1);
  });

  it("a batch writes the records of its items that completed beside their results: the run's history carries only the others' records", async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(definition('batch-records', 'item-6'), world, { runKey: 'records' });
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/batch-records/records', args: [input] });
    const result = await handle.result();
    await recordHistory(handle, 'pipeline-batch-records');

    expect(result.counts).toMatchObject({ completed: 11, failed: 1 });
    const charged = new Map(world.emulator.accounts.chargeLog().map((charge) => [/Facts about (\S+)/.exec(charge.subject ?? '')?.[1], charge.usd]));
    for (const [index, key] of items.entries()) {
      const record = await recordOf(result, key);
      if (key === 'item-6') expect(record).toMatchObject({ status: 'failed', costUsd: 0 });
      // What the service charged for it, its place in the input, its stored result.
      else
        expect(record).toMatchObject({
          key,
          index,
          status: 'completed',
          attempts: 1,
          costUsd: charged.get(key),
          result: { key: expect.stringContaining(`/results/${key}.json`) },
        });
    }
    // The records the run itself wrote (through history): the first item's (it ran alone, as the price probe) and the refused one's.
    const history = (await handle.historyJson()) as {
      events: Array<{ activityTaskScheduledEventAttributes?: { activityType?: { name?: string }; input?: { payloads?: Array<{ data?: string }> } } }>;
    };
    const written = history.events
      .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'recordPipelineItems')
      .flatMap((event) => event.activityTaskScheduledEventAttributes!.input!.payloads!)
      .flatMap((payload) =>
        (JSON.parse(Buffer.from(payload.data ?? '', 'base64').toString('utf8')) as { records: PipelineItemRecord[] }).records.map((record) => record.key),
      );
    expect(written.sort()).toEqual(['item-1', 'item-6']);
    expect(result.ledger.spentUsd).toBeCloseTo(
      [...charged.values()].reduce((sum, usd) => sum + usd, 0),
      6,
    );
  });

  it('cancelling the run cancels the calls of its batches in flight and counts each of their items at its reserved price', async () => {
    const env = getEnv();
    // Every search is held 3 s before the service handles (and charges) it.
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100, faults: { search: { latencyMs: 3_000 } } } });
    const input = await pipelineInput(definition('batch-cancel'), world, { runKey: 'cancel' });
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/batch-cancel/cancel', args: [input] });
    await env.waitUntil(() => (world!.emulator.stats.snapshot().injectedFaults.search?.latency ?? 0) >= 12, { description: 'every search to be in flight' });
    await handle.cancel();
    const state = await cancelledRun(handle);

    // A call that ended before the cancel reached it completes; the others are cancelled (a batch's at once).
    expect(state.counts.completed + state.counts.cancelled).toBe(12);
    expect(state.counts.cancelled).toBeGreaterThanOrEqual(8);
    const charged = world.emulator.accounts.chargeLog().reduce((sum, charge) => sum + charge.usd, 0);
    expect(state.ledger.spentUsd).toBeGreaterThanOrEqual(charged - 1e-9);
    const folder = pipelineRunPrefix('batch-cancel', 'cancel');
    expect((await world.store.list(`${folder}/attempts/~batches`)).length).toBeGreaterThan(0);
    const records = await Promise.all(
      items.map(async (key) => JSON.parse(Buffer.from(await world!.store.get(`${folder}/items/${key}.json`)).toString('utf8')) as PipelineItemRecord),
    );
    // Each cancelled item counts its reserved price: its call was sent and may have been charged.
    const cancelled = records.filter((record) => record.status === 'cancelled');
    expect(cancelled).toHaveLength(state.counts.cancelled);
    // Search prices are not bounded: the first item runs alone, the others reserve twice what it cost.
    const first = records.find((record) => record.status === 'completed');
    for (const record of cancelled) expect(record.costUsd).toBeCloseTo(2 * (first?.costUsd ?? 0), 6);
    expect(state.ledger.spentUsd).toBeCloseTo(
      records.reduce((sum, record) => sum + record.costUsd, 0),
      6,
    );
  });

  it('a worker lost while a batch is in flight: the retry counts each item whose call was sent as possibly charged, and the ledger covers what the service charged', async () => {
    const env = getEnv();
    // Every search is held 2 s before the service handles (and charges) it, whether or not anyone still listens.
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100, faults: { search: { latencyMs: 2_000 } } } });
    const input = await pipelineInput(definition('batch-lost'), world, { runKey: 'lost' });
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/batch-lost/lost', args: [input] });
    // The first item runs alone (the price probe); then the others go in batches.
    await env.waitUntil(() => (world!.emulator.stats.snapshot().injectedFaults.search?.latency ?? 0) >= 12, { description: 'every search to be in flight' });
    await env.restartWorker();
    const result = await handle.result();

    expect(result.counts).toMatchObject({ completed: 12, failed: 0 });
    const charged = world.emulator.accounts.chargeLog().reduce((sum, charge) => sum + charge.usd, 0);
    expect(result.ledger.spentUsd).toBeGreaterThanOrEqual(charged - 1e-9);
    const folder = pipelineRunPrefix('batch-lost', 'lost');
    const records = await Promise.all(
      items.map(async (key) => JSON.parse(Buffer.from(await world!.store.get(`${folder}/items/${key}.json`)).toString('utf8')) as PipelineItemRecord),
    );
    // The calls cut off by the restart were still handled (and charged) by the service, and sent again.
    expect([...chargesPerItem(world).values()].filter((count) => count > 1).length).toBeGreaterThan(0);
    // Every item the service charged twice says so in its record.
    for (const [item, count] of chargesPerItem(world)) {
      if (count > 1) expect(records.find((record) => record.key === item)?.possiblyChargedUsd).toBeGreaterThan(0);
    }
  });
});
