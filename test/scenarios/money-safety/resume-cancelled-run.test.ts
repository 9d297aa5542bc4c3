import { pipelineRunStateQuery, researchTaskStateQuery } from '../../../src/workflows/definitions';
import type { PipelineRunResult } from '../../../src/domain/pipeline-types';
import { describeScenarios } from '../../support/scenario-env';
import { companyProfiles, jsonlOutput } from '../../support/pipeline-runs';
import { pipelineInput } from '../pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../world';
import { cancelledRun } from '../../support/cancelled';

describeScenarios('money safety: resuming a cancelled run', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('runs the cancelled DeepResearch items again under a new workflow id, reuses the completed ones, and pays for nothing twice', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(companyProfiles('resumed', { companies: 3, concurrency: 1 }), world, { runKey: 'again' });
    const first = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/resumed/again', args: [input] });
    await env.waitUntil(async () => (await first.query(pipelineRunStateQuery)).counts.completed === 1, {
      timeoutMs: 3_600_000,
      description: 'the first item to finish',
    });
    await env.waitUntil(async () => (await first.query(pipelineRunStateQuery)).running.length === 1, { description: 'the second item to start' });
    const [runningKey] = (await first.query(pipelineRunStateQuery)).running;
    const child = env.getHandle(`research-task/resumed/again/${runningKey}`);
    await env.waitUntil(async () => (await child.query(researchTaskStateQuery)).deepresearchId !== undefined, { description: 'the child to create its task' });
    await first.cancel();
    expect((await cancelledRun(first)).counts).toMatchObject({ completed: 1, cancelled: 1 });
    const createdBefore = world.emulator.stats.snapshot().tasksCreated;
    expect(createdBefore).toBe(2);

    // The same run key again: the completed item is reused, the cancelled one and the unstarted one run.
    const again = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/resumed/again', args: [input] });
    const resumed = await again.result();
    expect(resumed.counts).toMatchObject({ reused: 1, completed: 2, failed: 0 });
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(4);
    expect(await env.getHandle(`research-task/resumed/again/${runningKey}~1`).result()).toMatchObject({ status: 'completed' });
    const lines = await jsonlOutput<{ key: string; status: string }>(resumed.outputs);
    expect(lines.map((line) => line.status)).toEqual(['completed', 'completed', 'completed']);
  });
});
