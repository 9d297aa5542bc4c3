import type { PipelineRunResult } from '../../../src/domain/pipeline-types';
import { describeScenarios, WorkflowFailedError } from '../../support/scenario-env';
import { pipelineInput } from '../pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../world';

describeScenarios('money safety: duplicate item keys', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it.each(['deepresearch', 'search'] as const)(
    'a %s run whose input repeats keys on different pages is refused before anything is spent, naming every key and its rows',
    async (kind) => {
      const env = getEnv();
      world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
      // acme repeats on the first and third page, globex three times.
      const rows = ['name', 'Acme', 'Globex', 'Initech', 'Umbrella', 'Acme', 'Globex', 'Hooli', 'Globex'].join('\n');
      const step =
        kind === 'deepresearch'
          ? 'deepresearch:\n    query: "Profile {{ item.name }}"\n    mode: fast'
          : 'search:\n    query: "{{ item.name }} news"\n    max_num_results: 1';
      const input = await pipelineInput(
        `
name: dupes
input:
  csv: companies.csv
  key: "{{ item.name | slug }}"
step:
  ${step}
concurrency: 2
start_rate_per_second: 50
budget_usd: 5
`,
        world,
        { runKey: kind, files: { 'companies.csv': `${rows}\n` }, pageSize: 3 },
      );
      const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: `pipeline-run/dupes/${kind}`, args: [input] });
      const failure = await handle.result().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect((failure as WorkflowFailedError).type).toBe('PipelineRunFailed');
      const message = (failure as WorkflowFailedError).message;
      expect(message).toMatch(
        /duplicate item keys: "acme" \(\S*companies\.csv:2, \S*companies\.csv:6\); "globex" \(\S*companies\.csv:3, \S*companies\.csv:7, \S*companies\.csv:9\)/,
      );
      const stats = world.emulator.stats.snapshot();
      expect(stats.tasksCreated).toBe(0);
      expect(stats.chargedUsd).toBe(0);
      expect(stats.requests.search ?? {}).toEqual({});
    },
  );
});
