import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRunCommand, statusCommand } from '../../src/commands/runs';
import type { TemporalOpener } from '../../src/commands/common';
import { scheduleActionCommand, scheduleSyncCommand } from '../../src/commands/schedules';
import { loadPipelineDefinition } from '../../src/pipelines';
import { startPipeline } from '../../src/runs/start';
import type { PipelineRunResult } from '../../src/domain/pipeline-types';
import { captureIo as capture } from '../support/capture-io';
import { describeScenarios } from '../support/scenario-env';
import { makeWorld, researchSetup, type ResearchWorld } from './world';

const answers = (name: string, items: string[], schedule = '') => `
name: ${name}
input:
  items: [${items.join(', ')}]
  key: "{{ item | slug }}"
step:
  answer:
    query: "Headcount of {{ item }}"
    data_max_price: 0.05
    structured_output:
      type: object
      properties:
        employees: { type: integer }
      required: [employees]
concurrency: 3
start_rate_per_second: 50
budget_usd: 5
${schedule}`;

describeScenarios('pipeline entry points', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rp-entry-'));
  });
  afterEach(async () => world?.close());
  const opener = (): TemporalOpener => async () => ({ client: getEnv().client, taskQueue: getEnv().taskQueue, close: async () => undefined });
  const write = async (name: string, yaml: string): Promise<string> => {
    const file = path.join(dir, `${name}.yaml`);
    await writeFile(file, yaml);
    return file;
  };

  it('startPipeline never starts two runs for one run key; --resume starts the closed key again', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const loaded = await loadPipelineDefinition(await write('a', answers(`keyed-${randomUUID().slice(0, 8)}`, ['Acme', 'Globex'])));
    const first = await startPipeline(env.client, loaded, {}, { runKey: 'event-42', taskQueue: env.taskQueue });
    const twice = await startPipeline(env.client, loaded, {}, { runKey: 'event-42', taskQueue: env.taskQueue });
    expect(first.started).toBe(true);
    expect(twice).toMatchObject({ started: false, workflowId: first.workflowId });
    await first.handle.result();
    const late = await startPipeline(env.client, loaded, {}, { runKey: 'event-42', taskQueue: env.taskQueue });
    expect(late.started).toBe(false);
    expect(world.emulator.stats.snapshot().requests.answer).toEqual({ 200: 2 });
    const resumed = await startPipeline(env.client, loaded, {}, { runKey: 'event-42', taskQueue: env.taskQueue, resume: true });
    expect(resumed.started).toBe(true);
    expect((await resumed.handle.result()).counts).toMatchObject({ reused: 2, completed: 0 });
    expect(world.emulator.stats.snapshot().requests.answer).toEqual({ 200: 2 });
  });

  it('rp run --wait prints progress lines and where the outputs are; rp status --json reads the run', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const name = `cli-${randomUUID().slice(0, 8)}`;
    const file = await write('b', answers(name, ['Acme', 'Globex', 'Initech']));
    const run = capture();
    const progress: string[] = [];
    const code = await startRunCommand(file, { runKey: 'w1', wait: true }, run.io, opener(), {
      stream: { isTTY: false, write: (text: string) => progress.push(text) },
      intervalMs: 50,
    });
    expect(code).toBe(0);
    expect(run.err()).toContain(`started: pipeline-run/${name}/w1`);
    expect(progress.join('')).toMatch(new RegExp(`${name}/w1: (running|writing_outputs|completed), \\d/3`));
    expect(run.out()).toMatch(/run .*\/w1 completed: 3 completed, 0 failed/);
    expect(run.out()).toMatch(/outputs: file:\/\/.*\/outputs/);
    const status = capture();
    expect(await statusCommand(`${name}/w1`, { json: true }, status.io, opener())).toBe(0);
    expect(JSON.parse(status.out())).toMatchObject({ phase: 'completed', total: 3, counts: { completed: 3 } });
  });

  it('schedule sync creates, updates and deletes to match the definitions; triggered runs report what changed', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const [one, two] = [`sched-a-${randomUUID().slice(0, 6)}`, `sched-b-${randomUUID().slice(0, 6)}`];
    const fileOne = await write('one', answers(one, ['Acme', 'Globex'], 'schedule:\n  cron: "0 7 * * MON"\n  timezone: Europe/London'));
    const fileTwo = await write('two', answers(two, ['Initech'], 'schedule:\n  cron: "@daily"'));
    const dry = capture();
    await scheduleSyncCommand([fileOne, fileTwo], { dryRun: true }, dry.io, opener());
    expect(dry.out()).toContain(`would create pipeline-schedule/${one}`);
    const sync = capture();
    await scheduleSyncCommand([fileOne, fileTwo], {}, sync.io, opener());
    expect(sync.out()).toContain(`created pipeline-schedule/${two}`);
    await writeFile(fileOne, answers(one, ['Acme', 'Globex', 'Hooli'], 'schedule:\n  cron: "0 8 * * MON"\n  timezone: Europe/London'));
    const again = capture();
    await env.waitUntil(
      async () => {
        const plan = capture();
        await scheduleSyncCommand([fileOne, fileTwo], { dryRun: true, json: true }, plan.io, opener());
        return JSON.parse(plan.out()).update.includes(`pipeline-schedule/${one}`);
      },
      { description: 'the new schedules to be listed' },
    );
    await scheduleSyncCommand([fileOne], { json: true }, again.io, opener());
    expect(JSON.parse(again.out())).toEqual({ create: [], update: [`pipeline-schedule/${one}`], delete: [`pipeline-schedule/${two}`], unchanged: [] });

    // Two fires of the same schedule: the second run's change report names the item added since the first.
    const runOf = async (count: number): Promise<PipelineRunResult> => {
      let workflowId = '';
      await env.waitUntil(
        async () => {
          const out = capture();
          await scheduleActionCommand('describe', one, { json: true }, out.io, opener());
          const recent = (JSON.parse(out.out()) as { recentRuns: Array<{ workflowId: string }> }).recentRuns;
          workflowId = recent[count - 1]?.workflowId ?? '';
          return workflowId !== '';
        },
        { description: `scheduled run ${count}` },
      );
      return (await env.client.workflow.getHandle(workflowId).result()) as PipelineRunResult;
    };
    await writeFile(fileOne, answers(one, ['Acme', 'Globex'], 'schedule:\n  cron: "0 8 * * MON"\n  timezone: Europe/London'));
    await scheduleSyncCommand([fileOne], {}, capture().io, opener());
    await scheduleActionCommand('trigger', one, {}, capture().io, opener());
    const firstRun = await runOf(1);
    expect(firstRun.runKey).toMatch(/^scheduled-/);
    expect(firstRun.outputs.changes).toBeUndefined();
    await writeFile(fileOne, answers(one, ['Acme', 'Hooli'], 'schedule:\n  cron: "0 8 * * MON"\n  timezone: Europe/London'));
    await scheduleSyncCommand([fileOne], {}, capture().io, opener());
    // A scheduled run's id ends in its start time to the second: two triggers in one second would share it.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await scheduleActionCommand('trigger', one, {}, capture().io, opener());
    const secondRun = await runOf(2);
    expect(secondRun.runKey).not.toBe(firstRun.runKey);
    expect(secondRun.outputs.changes).toBeDefined();
    const changes = JSON.parse(await readFile(fileURLToPath(secondRun.outputs.changes!.uri.replace(/\.md$/, '.json')), 'utf8'));
    expect(changes).toMatchObject({ previousRun: firstRun.runKey, currentRun: secondRun.runKey, added: ['hooli'], removed: ['globex'] });
    expect(changes.changed.length + changes.unchanged).toBe(1);
    await scheduleActionCommand('delete', one, {}, capture().io, opener());
  });
});
