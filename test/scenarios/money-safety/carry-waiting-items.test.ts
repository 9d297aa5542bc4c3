import { pipelineRunStateQuery, researchTaskStateQuery } from '../../../src/workflows/definitions';
import { pipelineItemWorkflowId } from '../../../src/domain/ids';
import type { PipelineRunResult } from '../../../src/domain/pipeline-types';
import { describeScenarios, recordHistory } from '../../support/scenario-env';
import { approvePlan, companyProfiles, jsonlOutput } from '../../support/pipeline-runs';
import { pipelineInput } from '../pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../world';
import { cancelledRun } from '../../support/cancelled';

// Case 12: a run that continues as new used to drain its whole window first, so one item waiting for a
// person's answer held every new start for as long as nobody answered.
describeScenarios('money safety: continue-as-new with an item waiting for a person', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('carries the waiting item into the next execution, goes on starting the others, and records the waiting item once when it is answered', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const items = 6;
    const input = await pipelineInput(companyProfiles('carried', { companies: items, concurrency: 2, planReview: true }), world, {
      runKey: 'waits',
      continueAsNewAfterEvents: 40,
    });
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/carried/waits', args: [input] });
    const held = 'company-1-example';
    const answered = new Set<string>();
    // Every item's plan review is answered but the first one's, which nobody answers until the others are done.
    await env.waitUntil(
      async () => {
        const state = await handle.query(pipelineRunStateQuery);
        for (const key of state.waiting.checkpoint.filter((key) => key !== held && !answered.has(key))) {
          const item = env.getHandle(pipelineItemWorkflowId('carried', 'waits', key));
          const interaction = (await item.query(researchTaskStateQuery)).interaction;
          if (!interaction) continue;
          await approvePlan(item, interaction.interaction_id);
          answered.add(key);
        }
        return state.counts.completed === items - 1;
      },
      { timeoutMs: 3_600_000, description: `the ${items - 1} answered items to complete while ${held} waits` },
    );
    const waiting = await handle.query(pipelineRunStateQuery);
    // The run went on past its history threshold: it continued as new with the waiting item carried.
    expect(waiting.executions).toBeGreaterThan(1);
    expect(waiting.running).toEqual([held]);
    expect(waiting.waiting.checkpoint).toEqual([held]);

    const item = env.getHandle(pipelineItemWorkflowId('carried', 'waits', held));
    const interaction = (await item.query(researchTaskStateQuery)).interaction!;
    await approvePlan(item, interaction.interaction_id);
    const result = await handle.result();
    await recordHistory(handle, 'pipeline-carries-item', 'first');
    await recordHistory(handle, 'pipeline-adopts-item');

    expect(result.counts).toMatchObject({ read: items, completed: items, failed: 0, cancelled: 0 });
    const stats = world.emulator.stats.snapshot();
    // From the service's books: one task per item, and the ledger shows what the service charged.
    expect(stats.tasksCreated).toBe(items);
    expect(Math.max(...Object.values(stats.tasksCreatedByMetadata))).toBe(1);
    expect(result.ledger.spentUsd).toBeCloseTo(stats.chargedUsd, 6);
    const lines = await jsonlOutput<{ key: string; status: string }>(result.outputs);
    expect(lines.map((line) => line.key).sort()).toEqual(Array.from({ length: items }, (_, index) => `company-${index + 1}-example`).sort());
    expect(new Set(lines.map((line) => line.status))).toEqual(new Set(['completed']));
  });

  it('cancels a carried item when the run is cancelled, and records it cancelled once', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(companyProfiles('carried', { companies: 3, concurrency: 1, planReview: true }), world, {
      runKey: 'cancelled',
      continueAsNewAfterEvents: 10,
    });
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/carried/cancelled', args: [input] });
    await env.waitUntil(
      async () => {
        const state = await handle.query(pipelineRunStateQuery);
        return state.executions > 1 && state.waiting.checkpoint.length === 1;
      },
      { timeoutMs: 3_600_000, description: 'the first item carried into a later execution, waiting at its plan review' },
    );
    await handle.cancel();
    const result = await cancelledRun(handle);
    expect(result.phase).toBe('cancelled');
    expect(result.counts).toMatchObject({ cancelled: 1, completed: 0 });
    const item = env.client.workflow.getHandle(pipelineItemWorkflowId('carried', 'cancelled', 'company-1-example'));
    expect((await item.describe()).status.name).not.toBe('RUNNING');
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(1);
  });
});
