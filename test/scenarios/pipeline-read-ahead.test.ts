import { itemRecordKey } from '../../src/activities/pipeline-items';
import { pipelineRunPrefix } from '../../src/domain/ids';
import type { PipelineRunResult } from '../../src/domain/pipeline-types';
import { pipelineRunStateQuery } from '../../src/workflows/definitions';
import { cancelledRun } from '../support/cancelled';
import { jsonlOutput } from '../support/pipeline-runs';
import { describeScenarios, recordHistory } from '../support/scenario-env';
import { pipelineInput } from './pipeline-world';
import { makeWorld, replaceActivity, researchSetup, type ResearchWorld } from './world';

interface HistoryEvent {
  eventType: string;
  activityTaskScheduledEventAttributes?: { activityType: { name: string }; input?: { payloads?: Array<{ data?: string }> } };
  markerRecordedEventAttributes?: { markerName: string; details?: Record<string, { payloads?: Array<{ data?: string }> }> };
}

/** A payload's JSON (the scenarios' histories are not encrypted). */
const decoded = (payload: { data?: string } | undefined): unknown =>
  payload?.data ? JSON.parse(Buffer.from(payload.data, 'base64').toString('utf8')) : undefined;

/** 120 rows; `where:` keeps 90 (every fourth is tier B). */
const rows = Array.from({ length: 120 }, (_, index) => ({ id: `t${index + 1}`, tier: index % 4 === 3 ? 'B' : 'A' }));
const kept = rows.filter((row) => row.tier === 'A').map((row) => row.id);
/** Completed by an earlier execution of the run (`--resume`): counted as reused, never searched again. */
const earlier = ['t5', 't6', 't30'];

describeScenarios('pipelineRunWorkflow reads its next page ahead', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('runs every item exactly once over many small pages and continue-as-new, starting items while the next page is read', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100, rateLimit: { requestsPerSecond: 10_000, burst: 10_000 } } });
    const prefix = pipelineRunPrefix('ahead', 'pages');
    for (const key of earlier)
      await world.store.put(
        itemRecordKey(prefix, key),
        JSON.stringify({ key, index: Number(key.slice(1)) - 1, status: 'completed', attempts: 1, costUsd: 0.01, finishedAt: 1 }),
        'application/json',
      );
    const input = await pipelineInput(
      `
name: ahead
input:
  jsonl: items.jsonl
  key: "{{ item.id }}"
  where: { field: item.tier, in: [A] }
step:
  search:
    query: "Facts about {{ item.id }}"
    search_type: web
    max_num_results: 1
    max_price: 1
concurrency: 6
start_rate_per_second: 50
budget_usd: 10
`,
      world,
      // Pages of 7 rows (about 5 kept), odd against batches of up to 3 items; continue-as-new every ~80 events.
      { runKey: 'pages', files: { 'items.jsonl': `${rows.map((row) => JSON.stringify(row)).join('\n')}\n` }, pageSize: 7, continueAsNewAfterEvents: 80 },
    );
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/ahead/pages', args: [input] });
    const result = await handle.result();
    const runs = await handle.runCount();
    // The first execution ends in continue-as-new with pages read ahead: the path the replay suite must cover.
    await recordHistory(handle, 'pipeline-read-ahead', 'first');

    expect(result.counts).toMatchObject({ read: kept.length, completed: kept.length - earlier.length, reused: earlier.length, failed: 0, skipped: 0 });
    expect(runs).toBeGreaterThan(2);
    expect(result.executions).toBe(runs);
    // Each kept item that had not completed before was searched exactly once; no row left out by `where:` was.
    const searched = new Map<string, number>();
    for (const charge of world.emulator.accounts.chargeLog()) {
      if (charge.reason !== 'search') continue;
      const key = /Facts about (\S+)/.exec(charge.subject ?? '')?.[1] ?? '?';
      searched.set(key, (searched.get(key) ?? 0) + 1);
    }
    expect(Object.fromEntries(searched)).toEqual(Object.fromEntries(kept.filter((key) => !earlier.includes(key)).map((key) => [key, 1])));
    // The output holds every kept item once, in input order.
    const lines = await jsonlOutput<{ key: string }>(result.outputs);
    expect(lines.map((line) => line.key)).toEqual(kept);

    // The first execution read pages ahead: a page at cursor N was asked for before every item ahead of N had started.
    const events = ((await handle.historyJson('first')) as { events: HistoryEvent[] }).events;
    const patches = events
      .filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_patch')
      .map((event) => (decoded(event.markerRecordedEventAttributes!.details?.['patch-data']?.payloads?.[0]) as { id: string }).id);
    expect(patches).toContain('read-next-page-ahead');
    let readAt = 0;
    let startedWhileReading = 0;
    for (const event of events) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (!scheduled) continue;
      const args = decoded(scheduled.input?.payloads?.[0]) as { cursor?: { index: number }; key?: string; items?: Array<{ key: string }> };
      if (scheduled.activityType.name === 'readPipelinePage') readAt = Math.max(readAt, args.cursor?.index ?? 0);
      const keys = args.items?.map((item) => item.key) ?? (args.key ? [args.key] : []);
      startedWhileReading += keys.filter((key) => Number(key.slice(1)) - 1 < readAt).length;
    }
    expect(startedWhileReading).toBeGreaterThan(0);
  });

  it('a run cancelled while it waits for the page read ahead ends cancelled, with what ran recorded and nothing paid twice', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let secondPageAsked = false;
    // The second page's read does not end until the test lets it (after the run ended).
    replaceActivity('readPipelinePage', (original) => async (args) => {
      if ((args.cursor?.index ?? 0) >= 10) {
        secondPageAsked = true;
        await held;
      }
      return original(args);
    });
    try {
      const input = await pipelineInput(
        `
name: ahead
input:
  jsonl: items.jsonl
  key: "{{ item.id }}"
step:
  search:
    query: "Facts about {{ item.id }}"
    max_num_results: 1
concurrency: 3
start_rate_per_second: 50
budget_usd: 10
`,
        world,
        {
          runKey: 'cancelled',
          files: {
            'items.jsonl': `${rows
              .slice(0, 30)
              .map((row) => JSON.stringify(row))
              .join('\n')}\n`,
          },
          pageSize: 10,
        },
      );
      const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/ahead/cancelled', args: [input] });
      await env.waitUntil(async () => secondPageAsked && (await handle.query(pipelineRunStateQuery)).counts.completed === 10, {
        description: "the first page's items to end while the second page is read",
      });
      await handle.cancel();
      const state = await cancelledRun(handle);
      expect(state.phase).toBe('cancelled');
      expect(state.counts).toMatchObject({ read: 10, completed: 10, failed: 0 });
      const searches = world.emulator.accounts.chargeLog().filter((charge) => charge.reason === 'search');
      expect(searches).toHaveLength(10);
      // The output names every input item: those that ran completed, the rest were not started.
      const lines = await jsonlOutput<{ key: string; status: string }>(state.outputs);
      expect(lines.filter((line) => line.status === 'completed').map((line) => line.key)).toEqual(rows.slice(0, 10).map((row) => row.id));
      expect(new Set(lines.filter((line) => line.status !== 'completed').map((line) => line.status))).toEqual(new Set(['not_started']));
    } finally {
      release();
    }
  });
});
