import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { pipelineRunStateQuery, raiseBudgetUpdate, researchBatchStateQuery } from '../../src/workflows/definitions';
import type { PipelineRunResult } from '../../src/domain/pipeline-types';
import type { ResearchBatchResult } from '../../src/workflows/types';
import { describeScenarios, recordHistory } from '../support/scenario-env';
import { pipelineInput } from './pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from './world';
import { cancelledRun, endedCanceled } from '../support/cancelled';

const text = async (uri: string): Promise<string> => readFile(fileURLToPath(uri), 'utf8');
const tickers = (count: number, extra: string[] = []): string =>
  ['ticker,name', ...Array.from({ length: count }, (_, index) => `T${index + 1},Company ${index + 1}`), ...extra].join('\n');

const earnings = (extra: string) => `
name: earnings
input:
  csv: tickers.csv
  key: "{{ item.ticker | lower }}"
step:
  batch:
    name: earnings-{{ run.key }}
    mode: fast
    query: "{{ item.name }} ({{ item.ticker }}) earnings{{ item.note }}"
outputs:
  - format: jsonl
  - format: csv
    columns:
      ticker: "{{ item.ticker }}"
      status: "{{ result.status }}"
${extra}`;

interface Line {
  key: string;
  status: string;
  attempts: number;
  cost_usd: number;
  error?: string;
  report?: string;
}

describeScenarios('pipelineRunWorkflow with a batch step', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('sends the items as service batches within the budget, waits for a raise, and fans every task in', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    // 12 good rows at 0.10 USD each, and row 7 without its note (a missing template variable).
    const rows = Array.from({ length: 13 }, (_, index) =>
      JSON.stringify({ ticker: `T${index + 1}`, name: `Company ${index + 1}`, ...(index === 6 ? {} : { note: ' Q3' }) }),
    ).join('\n');
    const input = await pipelineInput(earnings('budget_usd: 0.85').replace('csv: tickers.csv', 'jsonl: tickers.jsonl'), world, {
      runKey: 'q3',
      files: { 'tickers.jsonl': rows },
    });
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/earnings/q3', args: [input] });
    await env.waitUntil(async () => (await handle.query(pipelineRunStateQuery)).phase === 'waiting_for_budget', {
      timeoutMs: 3_600_000,
      description: 'the budget to hold the next service batch',
    });
    const held = await handle.query(pipelineRunStateQuery);
    // 8 tasks fit 0.85 USD; the row without its variable failed without spending; nothing else was read.
    expect(held.counts).toMatchObject({ read: 9, completed: 8, failed: 1, running: 0 });
    expect(held.ledger.spentUsd).toBeCloseTo(0.8, 6);
    expect(held.ledger.spentUsd).toBeLessThanOrEqual(0.85);
    expect(held.detail).toContain('raiseBudget');
    expect(held.failures).toEqual([expect.objectContaining({ key: 't7', error: expect.stringContaining('item.note') })]);
    expect(world.emulator.stats.snapshot()).toMatchObject({ tasksCreated: 8 });

    await handle.executeUpdate(raiseBudgetUpdate, { addUsd: 1 });
    const result = await handle.result();
    await recordHistory(handle, 'pipeline-batch');
    expect(result).toMatchObject({ status: 'completed', counts: { read: 13, completed: 12, failed: 1, cancelled: 0 } });
    expect(result.ledger.spentUsd).toBeCloseTo(1.2, 6);
    // Two service batches, every task created once.
    const stats = world.emulator.stats.snapshot();
    expect(stats.tasksCreated).toBe(12);
    expect((await world.api.listBatches()).length).toBe(2);

    const [jsonl, csvOut] = result.outputs.files;
    const lines = (await text(jsonl!.uri))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Line);
    expect(lines.map((line) => line.key)).toEqual(Array.from({ length: 13 }, (_, index) => `t${index + 1}`));
    expect(lines.filter((line) => line.status === 'completed')).toHaveLength(12);
    for (const line of lines.filter((entry) => entry.status === 'completed')) {
      expect(line.cost_usd).toBeCloseTo(0.1, 6);
      expect(await text(line.report!)).toMatch(/earnings/i);
    }
    // Each row ends with what the task cost and how many sources it cites.
    expect((await text(csvOut!.uri)).trim().split('\n')).toEqual([
      'ticker,status,cost_usd,sources',
      ...Array.from({ length: 13 }, (_, index) =>
        index === 6 ? 'T7,failed,0,0' : expect.stringMatching(new RegExp(`^T${index + 1},completed,0\\.1,[1-9]\\d*$`)),
      ),
    ]);
  });

  it('fails with the reason when the input cannot be read, after writing what finished', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(earnings('budget_usd: 5').replace('{{ item.note }}', ''), world, {
      runKey: 'broken',
      files: { 'tickers.csv': `${tickers(3)}\nT4,Company 4,extra` },
    });
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/earnings/broken', args: [input] });
    // The input is read to its end before anything is spent: the broken row stops the run before any
    // batch is made, and the run says why.
    await expect(handle.result()).rejects.toThrow(
      /the input cannot be read to its end, so nothing was started: .*tickers\.csv:5: Invalid Record Length.*outputs of what finished: file:/,
    );
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(0);
    expect((await handle.query(pipelineRunStateQuery)).phase).toBe('failed');
  });

  it('runs failed tasks again in a later service batch, up to the retries, and records each once', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100, research: { failureRate: 0.4 } } });
    const input = await pipelineInput(earnings('budget_usd: 10\nretries: 2').replace('{{ item.note }}', ''), world, {
      runKey: 'retried',
      files: { 'tickers.csv': tickers(20) },
    });
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/earnings/retried', args: [input] });
    const result = await handle.result();
    const lines = (await text(result.outputs.files[0]!.uri))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Line);
    const stats = world.emulator.stats.snapshot();
    const attempts = lines.reduce((sum, line) => sum + line.attempts, 0);
    // Every item is accounted for once; tasks made = attempts made; some needed more than one.
    expect(lines).toHaveLength(20);
    expect(result.counts.completed + result.counts.failed).toBe(20);
    expect(stats.tasksCreated).toBe(attempts);
    expect(attempts).toBeGreaterThan(20);
    expect(Math.max(...lines.map((line) => line.attempts))).toBeLessThanOrEqual(3);
    for (const line of lines.filter((entry) => entry.status === 'failed')) expect(line.attempts).toBe(3);
    expect((await world.api.listBatches()).length).toBe(Math.max(...lines.map((line) => line.attempts)));
  });

  it('on cancel cancels the service batch, keeps what finished and writes the outputs', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100, research: { capacity: 2 } } });
    const input = await pipelineInput(earnings('budget_usd: 10').replace('{{ item.note }}', ''), world, {
      runKey: 'stopped',
      files: { 'tickers.csv': tickers(8) },
    });
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/earnings/stopped', args: [input] });
    await env.waitUntil(async () => (await handle.query(pipelineRunStateQuery)).counts.running === 8, {
      timeoutMs: 3_600_000,
      description: 'the service batch to start',
    });
    const batch = env.getHandle<ResearchBatchResult>((await handle.query(pipelineRunStateQuery)).detail!.match(/workflow (\S+)/)![1]!);
    await env.waitUntil(async () => (await world!.api.listBatches())[0]?.counts.completed === 2, { timeoutMs: 3_600_000, description: 'two tasks to finish' });
    await handle.cancel();
    const result = await cancelledRun(handle);
    expect(result.phase).toBe('cancelled');
    expect(result.counts.completed + result.counts.cancelled).toBe(8);
    expect(result.counts.completed).toBeGreaterThanOrEqual(2);
    expect(result.counts.cancelled).toBeGreaterThan(0);
    // The service batch's workflow ends Canceled too; its state keeps what it collected.
    await endedCanceled(batch);
    expect((await batch.query(researchBatchStateQuery)).result?.status).toBe('cancelled');
    const lines = (await text(result.outputs!.files[0]!.uri))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Line);
    expect(lines.filter((line) => line.status === 'completed').length).toBe(result.counts.completed);
    expect(await handle.searchAttributes()).toMatchObject({ ResearchStatus: 'cancelled' });
  });
});
