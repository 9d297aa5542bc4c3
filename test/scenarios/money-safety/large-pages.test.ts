import type { PipelineRunResult } from '../../../src/domain/pipeline-types';
import { describeScenarios } from '../../support/scenario-env';
import { pipelineInput } from '../pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../world';

describeScenarios('money safety: pages of large items', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('sizes pages by bytes: 100 items of 22,000-character queries (2.2 MB as one page) run once each instead of a 2.2 MB page the server refuses', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100, rateLimit: { requestsPerSecond: 10_000, burst: 10_000 } } });
    const rows = Array.from({ length: 100 }, (_, index) =>
      JSON.stringify({ id: `q${index + 1}`, text: `${index + 1} ${'lithium supply chain '.repeat(1_100)}`.slice(0, 22_000) }),
    ).join('\n');
    const input = await pipelineInput(
      `
name: long-queries
input:
  jsonl: items.jsonl
  key: "{{ item.id }}"
step:
  search:
    query: "{{ item.text }}"
    max_num_results: 1
    max_price: 1
    response_length: 100
concurrency: 20
start_rate_per_second: 100
budget_usd: 50
`,
      world,
      { runKey: 'big-pages', files: { 'items.jsonl': `${rows}\n` }, pageSize: 100 },
    );
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/long-queries/big-pages', args: [input] });
    const result = await handle.result();
    expect(result.counts).toMatchObject({ read: 100 });
    expect(result.counts.completed + result.counts.failed).toBe(100);
    const searches = Object.values(world.emulator.stats.snapshot().requests.search ?? {}).reduce((sum, count) => sum + count, 0);
    expect(searches).toBe(100);
    // Before, the one page of 2.2 MB was refused by the server (payload over 2 MB) and retried for ever.
    expect(result.executions).toBeGreaterThanOrEqual(1);
  });
});
