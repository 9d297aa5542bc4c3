import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { PipelineRunResult } from '../../src/domain/pipeline-types';
import { describeScenarios, recordHistory } from '../support/scenario-env';
import { pipelineInput } from './pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from './world';

describeScenarios('pipelineRunWorkflow over a large input', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('continues as new many times, carrying a cursor and aggregates, and runs each of 400 items once', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100, rateLimit: { requestsPerSecond: 10_000, burst: 10_000 } } });
    const rows = Array.from({ length: 400 }, (_, index) => JSON.stringify({ id: `t${index + 1}`, topic: `topic number ${index + 1}` })).join('\n');
    const input = await pipelineInput(
      `
name: watch
input:
  jsonl: items.jsonl
  key: "{{ item.id }}"
step:
  search:
    query: "{{ item.topic }}"
    search_type: web
    max_num_results: 2
    max_price: 1
    response_length: 200
concurrency: 20
start_rate_per_second: 100
budget_usd: 10
`,
      world,
      // Items the window starts together share an activity (batches of 5 here): about 1.5 events per item.
      { runKey: 'big', files: { 'items.jsonl': `${rows}\n` }, continueAsNewAfterEvents: 100 },
    );
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/watch/big', args: [input] });
    const result = await handle.result();
    expect(result.counts).toMatchObject({ read: 400, completed: 400, failed: 0 });
    const runs = await handle.runCount();
    // The first run's history ends in continue-as-new: the path the replay suite must cover.
    await recordHistory(handle, 'pipeline-continue-as-new', 'first');
    expect(runs).toBeGreaterThan(4);
    expect(result.executions).toBe(runs);
    // Each item searched once (200, or 206 when a source found nothing).
    expect(Object.values(world.emulator.stats.snapshot().requests.search ?? {}).reduce((sum, count) => sum + count, 0)).toBe(400);
    // Every history stays near the threshold, and no payload carries the input or the results.
    expect(await handle.largestPayloadBytes()).toBeLessThan(64 * 1024);
    const keys = (await readFile(fileURLToPath(result.outputs.files[0]!.uri), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { key: string }).key);
    expect(new Set(keys).size).toBe(400);
    expect(keys[399]).toBe('t400');
  });
});
