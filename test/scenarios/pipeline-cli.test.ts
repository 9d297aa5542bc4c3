import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { budgetCommand, cancelCommand, pauseResumeCommand, respondCommand, statusCommand } from '../../src/commands/runs';
import type { TemporalOpener } from '../../src/commands/common';
import { loadPipelineDefinition } from '../../src/pipelines';
import { startPipeline } from '../../src/runs/start';
import type { PipelineRunState } from '../../src/domain/pipeline-types';
import type { ResearchTaskState } from '../../src/workflows/types';
import { captureIo as capture } from '../support/capture-io';
import { describeScenarios } from '../support/scenario-env';
import { companyProfiles } from '../support/pipeline-runs';
import { makeWorld, researchSetup, type ResearchWorld } from './world';
import { cancelledRun } from '../support/cancelled';

/**
 * The operator commands end to end on a run: what `rp pause | resume | status | respond | budget |
 * cancel` print and do, through the same functions commander calls, against a real server.
 */
describeScenarios('rp commands that steer a run', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());
  const opener = (): TemporalOpener => async () => ({ client: getEnv().client, taskQueue: getEnv().taskQueue, close: async () => undefined });
  const status = async (ref: string, item?: string) => {
    const out = capture();
    expect(await statusCommand(ref, { json: true, ...(item ? { item } : {}) }, out.io, opener())).toBe(0);
    return JSON.parse(out.out()) as PipelineRunState & ResearchTaskState;
  };

  it('pause, resume, status, respond, budget and cancel', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const dir = await mkdtemp(path.join(tmpdir(), 'rp-cli-'));
    const file = path.join(dir, 'steered.yaml');
    await writeFile(file, companyProfiles('steered', { companies: 3, concurrency: 1, planReview: true, budgetUsd: 0.25 }));
    const { handle } = await startPipeline(
      env.client,
      await loadPipelineDefinition(file),
      {},
      { runKey: 'ops', taskQueue: env.taskQueue, polling: world.polling },
    );
    const run = 'steered/ops';

    // Pause while the first item waits at its plan review: nothing else starts.
    await env.waitUntil(async () => (await status(run)).waiting.checkpoint.length === 1, {
      timeoutMs: 3_600_000,
      description: 'the first item at its plan review',
    });
    const paused = capture();
    expect(await pauseResumeCommand('pause', run, { reason: 'checking the plan' }, paused.io, opener())).toBe(0);
    expect(paused.out()).toBe('pause sent\n');
    const item = (await status(run)).waiting.checkpoint[0]!;
    const task = await status(run, item);
    const interaction = task.interaction!.interaction_id;

    // A wrong interaction is refused with the workflow's reason; the right one is accepted.
    const wrong = capture();
    expect(await respondCommand(run, { item, interaction: 'int_nope', response: '{"approved": true}' }, wrong.io, opener())).toBe(1);
    expect(wrong.err()).toMatch(/respond: refused: .*int_nope/);
    const right = capture();
    expect(await respondCommand(run, { item, interaction, response: '{"approved": true}' }, right.io, opener())).toBe(0);
    expect(right.out()).toBe(`answer accepted for interaction ${interaction}\n`);

    await env.waitUntil(async () => (await status(run)).counts.completed === 1, { timeoutMs: 3_600_000, description: 'the first item to finish' });
    const held = await status(run);
    expect(held).toMatchObject({ phase: 'paused', counts: { running: 0 } });
    const resumed = capture();
    expect(await pauseResumeCommand('resume', run, {}, resumed.io, opener())).toBe(0);

    // The budget (0.25 USD) holds the third item; lowering is refused, raising lets it start.
    await env.waitUntil(async () => (await status(run)).waiting.checkpoint.length === 1, {
      timeoutMs: 3_600_000,
      description: 'the second item at its plan review',
    });
    const lower = capture();
    expect(await budgetCommand(run, { set: '0.1' }, lower.io, opener())).toBe(1);
    expect(lower.err()).toMatch(/budget: refused: .*must be more than the current budget of 0.25 USD/);
    const raised = capture();
    expect(await budgetCommand(run, { add: '1', json: true }, raised.io, opener())).toBe(0);
    expect(JSON.parse(raised.out())).toMatchObject({ budgetUsd: 1.25 });

    // Cancel: the item at its checkpoint is cancelled, what finished is kept and written out.
    const cancelled = capture();
    expect(await cancelCommand(run, {}, cancelled.io, opener())).toBe(0);
    expect(cancelled.out()).toBe('cancel requested: pipeline-run/steered/ops\n');
    const result = await cancelledRun(handle);
    expect(result.phase).toBe('cancelled');
    expect(result.counts.completed).toBe(1);
    const after = capture();
    expect(await statusCommand(run, {}, after.io, opener())).toBe(0);
    expect(after.out()).toMatch(/^steered\/ops: cancelled/);
    expect(after.out()).toMatch(/outputs: file:\/\//);
  });
});
