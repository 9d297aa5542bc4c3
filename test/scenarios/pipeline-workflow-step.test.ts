import { pipelineRunStateQuery, raiseBudgetUpdate } from '../../src/workflows/definitions';
import type { PipelineRunResult } from '../../src/domain/pipeline-types';
import { describeScenarios } from '../support/scenario-env';
import { pipelineInput } from './pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from './world';

describeScenarios('pipelineRunWorkflow with a service workflow step', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it("reserves each item at its preview's price, and fails an item whose preview is refused without spending", async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(
      `
name: rivals
input:
  items:
    - { company: Fabrikam, market: grid storage, max: lots }
    - { company: Northwind, market: grid storage, max: 4 }
  key: "{{ item.company | slug }}"
step:
  workflow:
    workflow_id: competitor-scan
    params:
      company: "{{ item.company }}"
      market: "{{ item.market }}"
      max_competitors: "{{ item.max }}"
concurrency: 2
start_rate_per_second: 50
budget_usd: 1
`,
      world,
      { runKey: 'previewed' },
    );
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/rivals/previewed', args: [input] });
    // competitor-scan runs in heavy mode (2.50 USD, from its preview): a 1 USD budget holds it.
    await env.waitUntil(async () => (await handle.query(pipelineRunStateQuery)).phase === 'waiting_for_budget', {
      timeoutMs: 3_600_000,
      description: 'the budget to hold the heavy item',
    });
    const held = await handle.query(pipelineRunStateQuery);
    expect(held.detail).toContain('(2.5 USD) would pass the budget');
    expect(held.counts).toMatchObject({ failed: 1, running: 0 });
    expect(held.failures).toEqual([
      expect.objectContaining({ key: 'fabrikam', error: expect.stringMatching(/workflow competitor-scan preview refused: .*400.*max_competitors/) }),
    ]);
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(0);
    await handle.executeUpdate(raiseBudgetUpdate, { budgetUsd: 3 });
    const result = await handle.result();
    expect(result.counts).toMatchObject({ completed: 1, failed: 1 });
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(1);
  });
});
