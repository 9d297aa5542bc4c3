import { pipelineRunStateQuery, researchTaskStateQuery } from '../../../src/workflows/definitions';
import type { PipelineRunResult } from '../../../src/domain/pipeline-types';
import { pipelineSynthesisWorkflowId } from '../../../src/domain/ids';
import type { ResearchTaskState } from '../../../src/workflows/types';
import { describeScenarios } from '../../support/scenario-env';
import { pipelineInput } from '../pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../world';

describeScenarios('money safety: the synthesis child when its run ends', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('cancels the synthesis task at the service when the run is terminated, and a resumed run runs it again rather than failing on the id', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(
      `
name: brief
input:
  items: [Acme]
  key: "{{ item | slug }}"
step:
  answer:
    query: "What does {{ item }} sell?"
    data_max_price: 0.05
start_rate_per_second: 50
budget_usd: 5
synthesis:
  deepresearch:
    query: "Compare the companies for {{ pipeline.name }}"
    mode: heavy
`,
      world,
      { runKey: 'close' },
    );
    const handle = await env.start('pipelineRunWorkflow', { workflowId: 'pipeline-run/brief/close', args: [input] });
    const child = env.getHandle(pipelineSynthesisWorkflowId('brief', 'close'));
    let taskId: string | undefined;
    await env.waitUntil(async () => {
      const state = await child.query<ResearchTaskState>(researchTaskStateQuery).catch(() => undefined);
      taskId = state?.waitingFor === 'research' ? state.deepresearchId : undefined;
      return taskId !== undefined;
    });
    await env.client.workflow.getHandle(handle.workflowId).terminate('an operator ends the run');
    await env.waitUntil(async () => (await world!.api.getTask(taskId!)).status === 'cancelled');
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(1);

    // Started again with the same run key: the answered item is reused, and the synthesis an operator's
    // terminate cancelled is found (not reported as "already started") and runs again under a new id.
    const again = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/brief/close', args: [input] });
    const result = await again.result();
    expect(result.counts).toMatchObject({ reused: 1, failed: 0 });
    expect(result.outputs.synthesis).toBeDefined();
    expect((await again.query(pipelineRunStateQuery)).rejectedMessages.filter((message) => /synthesis/.test(message))).toEqual([]);
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(2);
  });
});
