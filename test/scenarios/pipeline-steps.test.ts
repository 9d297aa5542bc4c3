import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApplicationFailure } from '@temporalio/common';
import { statusCommand } from '../../src/commands/runs';
import type { TemporalOpener } from '../../src/commands/common';
import { FailureType } from '../../src/domain/failures';
import { pipelineStepWorkflowId } from '../../src/domain/ids';
import type { PipelineItemRecord, PipelineRunInput, PipelineRunResult } from '../../src/domain/pipeline-types';
import { itemSource, loadPipelineDefinition, resolveParameters } from '../../src/pipelines';
import { captureIo } from '../support/capture-io';
import { describeScenarios } from '../support/scenario-env';
import { makeWorld, replaceActivity, researchSetup, type ResearchWorld } from './world';

/** Requests a route answered, whatever the status (a Search capped by max_price answers 206). */
const calls = (byStatus: Record<string, number> | undefined): number => Object.values(byStatus ?? {}).reduce((sum, count) => sum + count, 0);
const text = async (uri: string): Promise<string> => readFile(fileURLToPath(uri), 'utf8');
const EXAMPLE = path.resolve(__dirname, '../../pipelines/company-enrichment.yaml');

/** The shipped example, as `rp run` would start it, on this world's clock. */
async function exampleInput(
  world: ResearchWorld,
  runKey: string,
  change: (input: PipelineRunInput) => PipelineRunInput = (input) => input,
): Promise<PipelineRunInput> {
  const loaded = await loadPipelineDefinition(EXAMPLE);
  const input: PipelineRunInput = {
    definition: { ...loaded.definition, start_rate_per_second: 50 },
    source: itemSource(loaded),
    params: resolveParameters(loaded.definition.parameters, {}, { textValues: true }),
    polling: world.polling,
    runKey,
  };
  return change(input);
}

type Line = {
  key: string;
  status: string;
  cost_usd: number;
  steps: Record<string, { status: string; cost_usd: number; output?: unknown; skipped_because?: string }>;
};

describeScenarios('pipeline steps', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('runs the company-enrichment example: each step paid once, DeepResearch only for tier A, rows left out by where, per-step CSV and JSONL', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await exampleInput(world, 'walk');
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/company-enrichment/walk', args: [input] });
    const result = await handle.result();
    // Six rows, one left out by input.where (tier X): five items, none failed.
    expect(result.counts).toMatchObject({ read: 5, completed: 5, failed: 0 });
    const books = world.emulator.stats.snapshot();
    expect(books.requests.answer).toEqual({ 200: 5 });
    expect(calls(books.requests.search)).toBe(5);
    // Tier A: Northwind Robotics and Fabrikam Grid.
    expect(books.tasksCreated).toBe(2);
    expect(result.ledger.spentUsd).toBeCloseTo(books.chargedUsd, 6);

    const [jsonl, csv, accounts, markdown] = result.outputs.files;
    const lines = (await text(jsonl!.uri))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Line);
    expect(lines.map((line) => [line.key, line.steps.profile?.status, line.steps.news?.status, line.steps.brief?.status])).toEqual([
      ['northwind-robotics-example', 'completed', 'completed', 'completed'],
      ['contoso-logistics-example', 'completed', 'completed', 'skipped'],
      ['fabrikam-grid-example', 'completed', 'completed', 'completed'],
      ['tailspin-health-example', 'completed', 'completed', 'skipped'],
      ['litware-analytics-example', 'completed', 'completed', 'skipped'],
    ]);
    expect(lines[1]!.steps.brief).toMatchObject({ cost_usd: 0, skipped_because: 'when: item.tier equals "A" did not hold' });
    expect(lines[0]!.steps.profile!.output).toMatchObject({ hq_city: expect.any(String), headcount: expect.any(Number) });
    for (const line of lines)
      expect(line.cost_usd).toBeCloseTo(
        Object.values(line.steps).reduce((sum, step) => sum + step.cost_usd, 0),
        6,
      );

    const rows = (await text(csv!.uri)).trim().split('\n');
    expect(rows[0]).toBe(
      'key,status,cost_usd,profile.status,profile.cost_usd,profile.hq_city,profile.headcount,news.status,news.cost_usd,news.urls,brief.status,brief.cost_usd,brief.report,sources',
    );
    expect(rows).toHaveLength(6);
    // The sources column counts what an item's steps cite: every item's news search found some.
    for (const row of rows.slice(1)) expect(Number(row.split(',').at(-1))).toBeGreaterThan(0);
    const accountRows = (await text(accounts!.uri)).trim().split('\n');
    expect(accountRows[0]).toBe('company,tier,hq_city,headcount,news,brief,cost_usd,sources');
    expect(accountRows[2]).toMatch(/^Contoso Logistics,B,[^,]+,\d+,[^,]*https?:\/\/[^,]+,skipped,/);

    // The digest shows each company's steps: the profile's fields, the news links, the tier-A brief or why it was skipped.
    const digest = await text(markdown!.uri);
    expect(markdown!.key).toMatch(/\/outputs\/results\.md$/);
    const entries = digest.split(/^### \d+\. /m).slice(1);
    expect(entries.map((entry) => entry.split('\n')[0])).toEqual(lines.map((line) => line.key));
    entries.forEach((entry, index) => {
      const { profile, news, brief } = lines[index]!.steps;
      const output = profile!.output as { hq_city: string; headcount: number };
      expect(entry).toContain(`#### profile · answer (${profile!.cost_usd.toFixed(4)} USD)\n\n*completed*`);
      expect(entry).toContain(`- **headcount**: ${output.headcount}`);
      expect(entry).toContain(`#### news · search (${news!.cost_usd.toFixed(4)} USD)\n\n*completed*\n\nSources (`);
      for (const result of (news!.output as Array<{ url: string }>).slice(0, 5)) expect(entry).toContain(`(<${result.url}>)`);
      if (brief!.status === 'completed') expect(entry).toMatch(/#### brief · deepresearch \(0\.1000 USD\)\n\n\*completed\*\n\n> \S/);
      else expect(entry).toContain('#### brief · deepresearch (0.0000 USD)\n\n*skipped*: when: item.tier equals "A" did not hold');
    });
    expect(digest).not.toContain('file://');

    // rp status --item shows each step, and the research task of the brief with its status and cost.
    const opener: TemporalOpener = async () => ({ client: env.client, taskQueue: env.taskQueue, close: async () => undefined });
    const shown = captureIo();
    expect(await statusCommand('company-enrichment/walk', { item: 'northwind-robotics-example' }, shown.io, opener)).toBe(0);
    const briefId = pipelineStepWorkflowId('company-enrichment', 'walk', 'northwind-robotics-example', 'brief', undefined);
    expect(shown.out()).toBe(
      [
        'northwind-robotics-example: 3 steps',
        '  profile · answer: a call, recorded with the item (no workflow of its own)',
        '  news · search: a call, recorded with the item (no workflow of its own)',
        `  brief · deepresearch: completed · workflow ${briefId} · cost 0.10 USD`,
        '',
      ].join('\n'),
    );
    const skipped = captureIo();
    expect(await statusCommand('company-enrichment/walk', { item: 'contoso-logistics-example', json: true }, skipped.io, opener)).toBe(0);
    expect(JSON.parse(skipped.out())).toEqual({
      item: 'contoso-logistics-example',
      steps: [
        { id: 'profile', kind: 'answer' },
        { id: 'news', kind: 'search' },
        { id: 'brief', kind: 'deepresearch' },
      ],
    });
  });

  it('a retried item and a resumed run pay nothing twice for the steps that completed', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await exampleInput(world, 'again');
    const attempts: Record<string, number> = {};
    let real: ((args: never) => Promise<unknown>) | undefined;
    // The news step of one item fails at the service in the first run (every attempt of the item).
    replaceActivity('runPipelineItem', (original) => async (args) => {
      real = original;
      attempts[args.key] = (attempts[args.key] ?? 0) + 1;
      if (args.key === 'northwind-robotics-example/news')
        throw ApplicationFailure.create({ type: FailureType.ServiceUnavailable, message: 'the service fell over', nonRetryable: true });
      return original(args);
    });
    const first = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/company-enrichment/again', args: [input] });
    const failed = await first.result();
    expect(failed.counts).toMatchObject({ completed: 4, failed: 1 });
    // Three attempts of the item (retries: 2), its profile answered once and reused by the retries.
    expect(attempts['northwind-robotics-example/profile']).toBe(1);
    expect(attempts['northwind-robotics-example/news']).toBe(3);
    expect(world.emulator.stats.snapshot().requests.answer).toEqual({ 200: 5 });
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(1);
    const record = JSON.parse(
      Buffer.from(await world.store.get('pipelines/company-enrichment/again/items/northwind-robotics-example.json')).toString('utf8'),
    ) as PipelineItemRecord;
    expect(record.steps?.map((step) => [step.id, step.status])).toEqual([
      ['profile', 'completed'],
      ['news', 'failed'],
    ]);
    const spentFirst = failed.ledger.spentUsd;
    expect(spentFirst).toBeCloseTo(world.emulator.stats.snapshot().chargedUsd, 6);

    // The service recovers; the same run key runs again (`rp run --resume`): only the missing steps are paid.
    replaceActivity('runPipelineItem', (original) => async (args) => {
      attempts[args.key] = (attempts[args.key] ?? 0) + 1;
      return (real ?? original)(args as never) as ReturnType<typeof original>;
    });
    const again = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/company-enrichment/again', args: [input] });
    const resumed = await again.result();
    expect(resumed.counts).toMatchObject({ reused: 4, completed: 1, failed: 0 });
    const books = world.emulator.stats.snapshot();
    expect(books.requests.answer).toEqual({ 200: 5 });
    expect(calls(books.requests.search)).toBe(5);
    expect(books.tasksCreated).toBe(2);
    expect(attempts['northwind-robotics-example/profile']).toBe(1);
    expect(spentFirst + resumed.ledger.spentUsd).toBeCloseTo(books.chargedUsd, 6);
    const lines = (await text(resumed.outputs.files[0]!.uri))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Line);
    expect(lines[0]!.steps.news?.status).toBe('completed');
    expect(lines[0]!.steps.brief?.status).toBe('completed');
  });

  it('a worker lost while a DeepResearch step runs: the next worker replays the earlier steps without paying them again', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    // One item at a time, so nothing but the brief is in flight when the worker goes (a lost Answer or
    // Search call may have been charged, and is counted so, by design: see the money-safety scenarios).
    const input = await exampleInput(world, 'killed', (run) => ({ ...run, definition: { ...run.definition, concurrency: 1 } }));
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/company-enrichment/killed', args: [input] });
    await env.waitUntil(() => world!.emulator.stats.snapshot().tasksCreated >= 1, { description: 'a brief step to be running' });
    await env.restartWorker();
    const result = await handle.result();
    expect(result.counts).toMatchObject({ completed: 5, failed: 0 });
    const books = world.emulator.stats.snapshot();
    expect(books.requests.answer).toEqual({ 200: 5 });
    expect(calls(books.requests.search)).toBe(5);
    expect(books.tasksCreated).toBe(2);
    expect(result.ledger.spentUsd).toBeCloseTo(books.chargedUsd, 6);
  });
});
