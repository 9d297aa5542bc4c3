import { mkdir } from 'node:fs/promises';
import type { PipelineRunResult } from '../../../src/domain/pipeline-types';
import { describeScenarios } from '../../support/scenario-env';
import { pipelineInput } from '../pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../world';

const definition = (csv: string) => `
name: unreadable
input:
  csv: ${csv}
  key: "{{ item.name | slug }}"
step:
  search:
    query: "{{ item.name }} news"
    max_num_results: 1
budget_usd: 1
start_rate_per_second: 50
`;

describeScenarios('money safety: an unreadable input', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('a folder given as the input CSV fails the run naming the path, spends nothing, and the worker goes on serving runs', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    const input = await pipelineInput(definition('companies.csv'), world, { runKey: 'folder' });
    const folder = (input.source as { path: string }).path;
    await mkdir(folder);
    const broken = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/unreadable/folder', args: [input] });
    await expect(broken.result()).rejects.toThrow(/companies\.csv: cannot read input file \(a folder; name a CSV or JSONL file\)/);
    expect(world.emulator.stats.snapshot().chargedUsd).toBe(0);
    // The same worker (this process) is still up and runs the next run to the end.
    const fine = await env.start<PipelineRunResult>('pipelineRunWorkflow', {
      workflowId: 'pipeline-run/unreadable/file',
      args: [await pipelineInput(definition('ok.csv'), world, { runKey: 'file', files: { 'ok.csv': 'name\nAcme\nGlobex\n' } })],
    });
    expect((await fine.result()).counts).toMatchObject({ read: 2, completed: 2 });
  });
});
