import { answerItemCheckpoint, checkpointWaits, currentItemWorkflowId } from '../../../src/runs/control';
import { pipelineRunStateQuery } from '../../../src/workflows/definitions';
import { pipelineItemWorkflowId } from '../../../src/domain/ids';
import type { PipelineRunResult } from '../../../src/domain/pipeline-types';
import { describeScenarios } from '../../support/scenario-env';
import { companyProfiles, jsonlOutput, waitAtCheckpoint } from '../../support/pipeline-runs';
import { pipelineInput } from '../pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../world';
import { cancelledRun } from '../../support/cancelled';

// Case 13: the service does not cancel a task waiting at a checkpoint. A cancelled run recorded the item
// cancelled and forgot the task, so resuming the run paid for a second task beside the first.
describeScenarios('money safety: a task left open at the service by a cancelled run', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('says so in the outputs, and a resumed run follows that task to its end instead of creating another', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(companyProfiles('held', { companies: 1, concurrency: 1, planReview: true }), world, { runKey: 'open' });
    const key = 'company-1-example';
    const first = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/held/open', args: [input] });
    await env.waitUntil(async () => (await first.query(pipelineRunStateQuery)).waiting.checkpoint.length === 1, {
      timeoutMs: 3_600_000,
      description: 'the item at its plan review',
    });
    await first.cancel();
    const cancelled = await cancelledRun(first);
    expect(cancelled.counts).toMatchObject({ cancelled: 1, completed: 0 });
    const [line] = await jsonlOutput<{ status: string; open_at_service?: { task_id: string; status: string } }>(cancelled.outputs);
    expect(line).toMatchObject({ status: 'cancelled', open_at_service: { status: 'awaiting_input' } });
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(1);

    // The same run key again: the item's new workflow follows the task that is still open.
    const again = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/held/open', args: [input] });
    const item = env.getHandle(`${pipelineItemWorkflowId('held', 'open', key)}~1`);
    const state = await waitAtCheckpoint(env, item, 'the resumed item to show the open checkpoint');
    expect(state.deepresearchId).toBe(line!.open_at_service!.task_id);
    // What `rp status`, `rp respond` and the intake use finds the item under its new workflow id.
    await env.waitUntil(async () => JSON.stringify(await checkpointWaits(env.client, 'held', 'open')) === JSON.stringify([key]), {
      description: 'visibility to list the item as waiting at a checkpoint',
    });
    expect(await currentItemWorkflowId(env.client, 'held', 'open', key)).toBe(`${pipelineItemWorkflowId('held', 'open', key)}~1`);
    await answerItemCheckpoint(env.client, 'held', 'open', key, { interactionId: state.interaction!.interaction_id, response: { approved: true } });
    const resumed = await again.result();
    expect(resumed.counts).toMatchObject({ completed: 1, failed: 0 });
    const stats = world.emulator.stats.snapshot();
    expect(stats.tasksCreated).toBe(1);
    expect(resumed.ledger.spentUsd).toBeGreaterThanOrEqual(stats.chargedUsd - 1e-9);
  });
});
