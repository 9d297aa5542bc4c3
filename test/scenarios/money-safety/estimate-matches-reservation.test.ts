import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startRunCommand } from '../../../src/commands/runs';
import type { TemporalOpener } from '../../../src/commands/common';
import { loadPipelineDefinition } from '../../../src/pipelines';
import { dryRunPipeline } from '../../../src/runs/dry-run';
import { dryRunPassed, formatDryRunReport } from '../../../src/runs/dry-run-report';
import { pipelineRunStateQuery, raiseBudgetUpdate } from '../../../src/workflows/definitions';
import { pipelineRunWorkflowId } from '../../../src/domain/ids';
import { captureIo as capture } from '../../support/capture-io';
import { describeScenarios } from '../../support/scenario-env';
import { makeWorld, researchSetup, type ResearchWorld } from '../world';

const answers = (name: string, count: number, budget: number) => `
name: ${name}
input:
  items: [${Array.from({ length: count }, (_, index) => `company-${index + 1}`).join(', ')}]
  key: "{{ item }}"
step:
  answer:
    query: "Headcount of {{ item }}"
concurrency: 5
start_rate_per_second: 50
budget_usd: ${budget}
`;

describeScenarios('money safety: the estimate, the reservation and a run that waits for budget', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rp-estimate-'));
  });
  afterEach(async () => world?.close());
  const write = async (yaml: string): Promise<string> => {
    const file = path.join(dir, `${randomUUID()}.yaml`);
    await writeFile(file, yaml);
    return file;
  };

  it('the dry run shows what each item reserves and fails a budget the run cannot finish in, naming the budget it needs', async () => {
    // 30 Answers at 0.10 each is 3.00 USD, but each reserves 1.10 (the default data_max_price of 1 USD)
    // while it runs: the last ones cannot start within 3.50.
    const report = await dryRunPipeline(await loadPipelineDefinition(await write(answers('tight', 30, 3.5))));
    expect(report).toMatchObject({ items: 30, estimate: { usd: 3, maxUsd: 33 }, reservePerItemUsd: 1.1, budgetNeededUsd: 4, overBudget: true });
    expect(dryRunPassed(report)).toBe(false);
    const text = formatDryRunReport(report);
    expect(text).toContain('reserved while an item runs: up to 1.10 USD');
    expect(text).toContain(
      'error: the run cannot finish within budget_usd 3.50 USD: at the estimated 3.00 USD its last items still need up to 1.10 USD reserved each',
    );
    expect(text).toContain('set budget_usd to at least 4.00 USD');
    const enough = await dryRunPipeline(await loadPipelineDefinition(await write(answers('enough', 30, 4))));
    expect(dryRunPassed(enough)).toBe(true);
  });

  it('rp run --wait says when the run waits for budget and how to raise it, and goes on once raised', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const name = `waits-${randomUUID().slice(0, 8)}`;
    const file = await write(answers(name, 6, 1.5));
    const opener: TemporalOpener = async () => ({ client: env.client, taskQueue: env.taskQueue, close: async () => undefined });
    const progress: string[] = [];
    const io = capture();
    const running = startRunCommand(file, { runKey: 'r1', wait: true }, io.io, opener, {
      stream: { isTTY: false, write: (text: string) => progress.push(text) },
      intervalMs: 50,
    });
    const handle = env.getHandle(pipelineRunWorkflowId(name, 'r1'));
    await env.waitUntil(async () => progress.join('').includes('waits:'), { description: 'the notice that the run waits for budget' });
    expect(progress.join('')).toMatch(
      new RegExp(`${name}/r1 waits: the next item \\(1\\.1 USD\\) would pass the budget of 1\\.5 USD .*Go on with \`rp budget ${name}/r1 --add <usd>\``),
    );
    expect((await handle.query(pipelineRunStateQuery)).phase).toBe('waiting_for_budget');
    await handle.executeUpdate(raiseBudgetUpdate, { addUsd: 10 });
    expect(await running).toBe(0);
    expect(io.out()).toMatch(/completed: 6 completed, 0 failed/);
  });
});
