import { pipelineStepWorkflowId } from '../../../src/domain/ids';
import type { PipelineRunResult } from '../../../src/domain/pipeline-types';
import { describeScenarios } from '../../support/scenario-env';
import { approvePlan, jsonlOutput, waitAtCheckpoint } from '../../support/pipeline-runs';
import { companies, pipelineInput } from '../pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../world';
import { cancelledRun } from '../../support/cancelled';

// The steps: form of "a task left open at the service": a run cancelled while a DeepResearch step's task
// waits at a checkpoint (which the service will not cancel) must count what that task cost, say the task
// is open, and a resumed run must follow that task instead of paying for a second one.
describeScenarios('money safety: a steps: item whose DeepResearch task a cancelled run left open', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('counts the step, records the open task, and a resumed run follows it to its end without creating another', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(
      `
name: held-steps
input:
  items:
${companies(1)}
  key: "{{ item.domain | slug }}"
steps:
  - id: profile
    answer:
      query: "Where is {{ item.name }} based?"
  - id: brief
    deepresearch:
      query: "Profile {{ item.name }}: {{ steps.profile.result.output }}"
      mode: fast
      hitl: { plan_review: true }
outputs:
  - format: jsonl
concurrency: 1
start_rate_per_second: 50
budget_usd: 5
`,
      world,
      { runKey: 'open' },
    );
    const key = 'company-1-example';
    const first = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/held-steps/open', args: [input] });
    const step = env.getHandle(pipelineStepWorkflowId('held-steps', 'open', key, 'brief', undefined));
    const taskId = (await waitAtCheckpoint(env, step, 'the brief step at its plan review')).deepresearchId;
    await first.cancel();
    const cancelled = await cancelledRun(first);
    expect(cancelled.counts).toMatchObject({ cancelled: 1, completed: 0 });
    const afterCancel = world.emulator.stats.snapshot();
    expect(afterCancel.tasksCreated).toBe(1);
    // The ledger counts what the service charged, the open task included.
    expect(cancelled.ledger.spentUsd).toBeGreaterThanOrEqual(afterCancel.chargedUsd - 1e-9);
    const [line] = await jsonlOutput<{ status: string }>(cancelled.outputs);
    expect(line).toMatchObject({ status: 'cancelled' });

    // The same run key again: the profile is reused, and the brief's new workflow follows the open task.
    const again = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/held-steps/open', args: [input] });
    const resumedStep = env.getHandle(pipelineStepWorkflowId('held-steps', 'open', key, 'brief', 1));
    const state = await waitAtCheckpoint(env, resumedStep, 'the resumed brief step to show the open checkpoint');
    expect(state.deepresearchId).toBe(taskId);
    await approvePlan(resumedStep, state.interaction!.interaction_id);
    const resumed = await again.result();
    expect(resumed.counts).toMatchObject({ completed: 1, failed: 0 });
    const stats = world.emulator.stats.snapshot();
    expect(stats.tasksCreated).toBe(1);
    expect(stats.requests.answer).toEqual({ 200: 1 });
    expect(cancelled.ledger.spentUsd + resumed.ledger.spentUsd).toBeGreaterThanOrEqual(stats.chargedUsd - 1e-9);
  });
});
