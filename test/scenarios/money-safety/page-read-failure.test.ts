import { ApplicationFailure } from '@temporalio/common';
import type { PipelineOutputs, PipelineRunResult } from '../../../src/domain/pipeline-types';
import { describeScenarios, WorkflowFailedError } from '../../support/scenario-env';
import { jsonlOutput } from '../../support/pipeline-runs';
import { pipelineInput } from '../pipeline-world';
import { makeWorld, replaceActivity, researchSetup, type ResearchWorld } from '../world';

describeScenarios('money safety: a page that cannot be read', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('stops starting, lets the running items finish, writes the outputs of what finished and fails saying why', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const rows = Array.from({ length: 12 }, (_, index) => JSON.stringify({ id: `t${index + 1}` })).join('\n');
    const input = await pipelineInput(
      `
name: broken-input
input:
  jsonl: items.jsonl
  key: "{{ item.id }}"
step:
  deepresearch:
    query: "Profile of {{ item.id }}"
    mode: fast
concurrency: 4
start_rate_per_second: 50
budget_usd: 5
`,
      world,
      { runKey: 'third-page', files: { 'items.jsonl': `${rows}\n` }, pageSize: 4 },
    );
    // The third page fails in a way that is neither invalid input nor worth retrying.
    replaceActivity('readPipelinePage', (original) => async (args) => {
      if ((args.cursor?.index ?? 0) >= 8)
        throw ApplicationFailure.create({ type: 'StoreUnavailable', message: 'the input store refused the read', nonRetryable: true });
      return original(args);
    });
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/broken-input/third-page', args: [input] });
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).type).toBe('PipelineRunFailed');
    const cause = (failure as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.message).toMatch(/the input could not be read further: the input store refused the read/);
    const { counts, outputs } = cause.details![0] as { counts: PipelineRunResult['counts']; outputs: PipelineOutputs };
    // The eight items read before were run to the end, not cancelled: each paid task is collected.
    expect(counts).toMatchObject({ read: 8, completed: 8, cancelled: 0 });
    const stats = world.emulator.stats.snapshot();
    expect(stats.tasksCreated).toBe(8);
    expect(stats.requests['deepresearch.cancel'] ?? {}).toEqual({});
    const lines = await jsonlOutput<{ key: string; status: string }>(outputs);
    expect(
      lines
        .filter((line) => line.status === 'completed')
        .map((line) => line.key)
        .sort(),
    ).toEqual(['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8']);
  });
});
