import type { PipelineRunResult } from '../../../src/domain/pipeline-types';
import { pipelineRunStateQuery } from '../../../src/workflows/definitions';
import { describeScenarios, recordHistory } from '../../support/scenario-env';
import { pipelineInput } from '../pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../world';
import { cancelledRun } from '../../support/cancelled';

describeScenarios('money safety: the budget, counted at the service', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it("Search items whose price the request does not bound never take the service's charges past the budget by more than one item", async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const topics = Array.from({ length: 40 }, (_, index) => `    - battery chemistry ${index + 1}`).join('\n');
    const budget = 0.01;
    const input = await pipelineInput(
      `
name: uncapped
input:
  items:
${topics}
  key: "{{ item | slug }}"
step:
  search:
    query: "{{ item }}"
    max_num_results: 5
concurrency: 10
start_rate_per_second: 100
budget_usd: ${budget}
`,
      world,
      { runKey: 'tight' },
    );
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/uncapped/tight', args: [input] });
    await env.waitUntil(async () => (await handle.query(pipelineRunStateQuery)).phase === 'waiting_for_budget', { description: 'the budget to stop the run' });
    const state = await handle.query(pipelineRunStateQuery);
    const stats = world.emulator.stats.snapshot();
    const searches = Object.values(stats.requests.search ?? {}).reduce((sum, count) => sum + count, 0);
    expect(searches).toBeGreaterThan(0);
    expect(searches).toBeLessThan(40);
    // The service's own total: past the budget by at most the dearest single item (the run never knows
    // an unbounded item's price before it ends).
    const charges = world.emulator.accounts.chargeLog().map((charge) => charge.usd);
    expect(charges).toHaveLength(searches);
    expect(stats.chargedUsd).toBeLessThanOrEqual(budget + Math.max(...charges));
    expect(state.ledger.spentUsd).toBeCloseTo(stats.chargedUsd, 6);
    expect(state.detail).toMatch(/would pass the budget of 0\.01 USD .*raise it with the raiseBudget update/);
    await handle.cancel();
    const result = await cancelledRun(handle);
    expect(result.phase).toBe('cancelled');
    await recordHistory(handle, 'pipeline-search-budget');
    expect(world.emulator.stats.snapshot().chargedUsd).toBeCloseTo(stats.chargedUsd, 9);
  });
});
