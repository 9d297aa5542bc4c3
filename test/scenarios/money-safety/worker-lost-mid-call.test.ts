import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { PipelineItemRecord, PipelineRunResult } from '../../../src/domain/pipeline-types';
import { describeScenarios } from '../../support/scenario-env';
import { pipelineInput } from '../pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../world';

describeScenarios('money safety: the worker lost while a paid call without a look-up is in flight', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('the retry on the next worker counts the first attempt as possibly charged: the ledger never shows less than the service charged, and the item says so', async () => {
    const env = getEnv();
    // Every Answer is held 2 s before the service handles (and charges) it.
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100, faults: { answer: { latencyMs: 2_000 } } } });
    const input = await pipelineInput(
      `
name: lost-answer
input:
  items: [acme]
  key: "{{ item }}"
step:
  answer:
    query: "Headcount of {{ item }}"
    data_max_price: 0.05
start_rate_per_second: 50
budget_usd: 2
`,
      world,
      { runKey: 'killed' },
    );
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/lost-answer/killed', args: [input] });
    await env.waitUntil(() => (world!.emulator.stats.snapshot().injectedFaults.answer?.latency ?? 0) >= 1, { description: 'the Answer call to be in flight' });
    // The worker goes away mid-call; the service still handles (and charges) what it received.
    await env.restartWorker();
    const result = await handle.result();
    expect(result.counts).toMatchObject({ completed: 1, failed: 0 });
    const answers = world.emulator.accounts.chargeLog().filter((charge) => charge.reason === 'answer');
    expect(answers).toHaveLength(2);
    const charged = answers.reduce((sum, charge) => sum + charge.usd, 0);
    expect(result.ledger.spentUsd).toBeGreaterThanOrEqual(charged - 1e-9);
    const record = JSON.parse(
      await readFile(fileURLToPath(`${result.outputs.folderUri.replace(/\/outputs\/?$/, '')}/items/acme.json`), 'utf8'),
    ) as PipelineItemRecord;
    // Counted at its reservation (0.15 USD), or one and a half times what the completed attempt cost if that is more.
    const completedUsd = record.costUsd - record.possiblyChargedUsd!;
    expect(record.possiblyChargedUsd).toBeCloseTo(Math.max(0.15, 1.5 * completedUsd), 5);
    expect(record).toMatchObject({ status: 'completed', error: expect.stringContaining(`possibly charged twice: ${record.possiblyChargedUsd} USD`) });
  });
});
