import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { redactingTestLogger } from '../support/test-logger';
import { createActivities, InMemoryWebhookSecretStore, LocalArtifactStore } from '../../src/activities';
import { heartbeat, keepingAlive } from '../../src/activities/context';
import { startResearchHarness, type ResearchHarness } from '../support/research-harness';
import { ActivityTestEnvironment } from './helpers';

const quiet = { logger: redactingTestLogger('error') };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an activity whose options set a heartbeat timeout', () => {
  let h: ResearchHarness;
  let dir: string;
  beforeEach(async () => {
    // Every Search call is held 1.5 s: five times the heartbeat timeout below.
    h = await startResearchHarness({}, { faults: { search: { latencyMs: 1_500 } } });
    dir = await mkdtemp(path.join(tmpdir(), 'rp-keep-alive-'));
  });
  afterEach(async () => {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('heartbeats all through a paid call that outlasts the timeout, so Temporal never retries it beside itself', async () => {
    const activities = createActivities({ api: h.client, store: new LocalArtifactStore(dir), secrets: new InMemoryWebhookSecretStore() });
    const env = new ActivityTestEnvironment({ heartbeatTimeoutMs: 300 }, quiet);
    const beats: number[] = [];
    env.on('heartbeat', () => beats.push(Date.now()));
    const started = Date.now();
    const outcome = await env.call(activities.runPipelineItem, {
      key: 'acme',
      request: { kind: 'search', request: { query: 'Acme news', max_num_results: 1 } },
      prefix: 'pipelines/p/r',
    });
    expect(outcome.result).toBeDefined();
    expect(h.emulator.stats.snapshot().requests.search).toEqual({ 200: 1 });
    // No gap between beats (from the start to the end) as long as the 300 ms timeout.
    const gaps = [started, ...beats, Date.now()].map((at, index, all) => (index === 0 ? 0 : at - all[index - 1]!));
    expect(beats.length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...gaps)).toBeLessThan(300);
  });
});

describe('keepingAlive', () => {
  it('repeats the details the activity last gave, so progress is not erased', async () => {
    const env = new ActivityTestEnvironment({ heartbeatTimeoutMs: 150 }, quiet);
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    await env.run(
      keepingAlive(async () => {
        heartbeat({ stored: 3 });
        await sleep(400);
      }),
    );
    expect(beats.length).toBeGreaterThanOrEqual(3);
    expect(beats.every((details) => JSON.stringify(details) === '{"stored":3}')).toBe(true);
  });

  it("repeats a previous attempt's details until the activity gives new ones", async () => {
    const env = new ActivityTestEnvironment({ heartbeatTimeoutMs: 150, attempt: 2, heartbeatDetails: { added: 100 } }, quiet);
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    await env.run(keepingAlive(() => sleep(250)));
    expect(beats.length).toBeGreaterThanOrEqual(2);
    expect(beats.every((details) => JSON.stringify(details) === '{"added":100}')).toBe(true);
  });

  it('does not beat for an activity without a heartbeat timeout (its call fits its start-to-close)', async () => {
    const env = new ActivityTestEnvironment({ heartbeatTimeoutMs: undefined }, quiet);
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    await env.run(keepingAlive(() => sleep(200)));
    expect(beats).toEqual([]);
  });
});
