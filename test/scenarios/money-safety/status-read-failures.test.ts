import type { PipelineRunResult } from '../../../src/domain/pipeline-types';
import { describeScenarios } from '../../support/scenario-env';
import { companyProfiles, jsonlOutput } from '../../support/pipeline-runs';
import { pipelineInput } from '../pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../world';

describeScenarios('money safety: a status read that fails', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('keeps following each task through unrecognised statuses and 5xx: one task per item, charged once, every item once in the outputs', async () => {
    const env = getEnv();
    world = await makeWorld(env, {
      emulator: {
        defaultCreditsUsd: 100,
        // Half the status reads answer a state outside the spec's enum; a fifth fail with 5xx.
        faults: { 'deepresearch.status': { unknownStatusRate: 0.5, errorRate: 0.2 } },
      },
    });
    const input = await pipelineInput(companyProfiles('followed', { companies: 3, concurrency: 3, more: 'retries: 2\n' }), world, { runKey: 'faulty-status' });
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/followed/faulty-status', args: [input] });
    const result = await handle.result();
    const stats = world.emulator.stats.snapshot();
    expect(stats.injectedFaults['deepresearch.status']?.unknownStatus).toBeGreaterThan(0);
    expect(result.counts).toMatchObject({ read: 3, completed: 3, failed: 0 });
    // One task per item at the service, and the run's ledger shows what the service charged.
    expect(stats.tasksCreated).toBe(3);
    expect(Object.values(stats.tasksCreatedByMetadata)).toEqual([1, 1, 1]);
    expect(result.ledger.spentUsd).toBeCloseTo(stats.chargedUsd, 6);
    const lines = await jsonlOutput<{ key: string; status: string }>(result.outputs);
    expect(lines.map((line) => line.key).sort()).toEqual(['company-1-example', 'company-2-example', 'company-3-example']);
    expect(lines.every((line) => line.status === 'completed')).toBe(true);
  });
});
