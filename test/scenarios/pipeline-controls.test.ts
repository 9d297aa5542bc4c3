import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ApplicationFailure } from '@temporalio/common';
import {
  pausePipelineSignal,
  pipelineRunStateQuery,
  raiseBudgetUpdate,
  researchTaskStateQuery,
  respondToCheckpointUpdate,
  resumePipelineSignal,
} from '../../src/workflows/definitions';
import { pipelineItemWorkflowId } from '../../src/domain/ids';
import { FailureType } from '../../src/domain/failures';
import type { PipelineRunResult } from '../../src/domain/pipeline-types';
import { describeScenarios, recordHistory, WorkflowUpdateFailedError } from '../support/scenario-env';
import { companies, pipelineInput } from './pipeline-world';
import { makeWorld, replaceActivity, researchSetup, type ResearchWorld } from './world';
import { cancelledRun, cancelledTask } from '../support/cancelled';

const fastResearch = (count: number, extra: string) => `
name: scan
input:
  items:
${companies(count)}
  key: "{{ item.domain | slug }}"
step:
  deepresearch:
    query: "Profile {{ item.name }}"
    mode: fast
start_rate_per_second: 50
${extra}`;

describeScenarios('pipelineRunWorkflow controls', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('never starts an item that would pass the budget, waits for a raise, then runs the rest', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(fastResearch(4, 'concurrency: 4\nbudget_usd: 0.25'), world, { runKey: 'budget' });
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/scan/budget', args: [input] });
    await env.waitUntil(async () => (await handle.query(pipelineRunStateQuery)).phase === 'waiting_for_budget', {
      timeoutMs: 3_600_000,
      description: 'the budget to stop the run',
    });
    const stopped = await handle.query(pipelineRunStateQuery);
    expect(stopped.counts).toMatchObject({ completed: 2, running: 0 });
    expect(stopped.ledger.spentUsd).toBeCloseTo(0.2, 6);
    expect(stopped.detail).toContain('raiseBudget');
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(2);
    await expect(handle.executeUpdate(raiseBudgetUpdate, { budgetUsd: 0.2 })).rejects.toThrow(/must be more than the current budget of 0.25 USD/);
    await expect(handle.executeUpdate(raiseBudgetUpdate, { addUsd: -1 })).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    expect(await handle.executeUpdate(raiseBudgetUpdate, { addUsd: 0.2 })).toMatchObject({ budgetUsd: 0.45 });
    await recordHistory(handle, 'pipeline-budget-raise');
    const result = await handle.result();
    expect(result.counts).toMatchObject({ completed: 4, failed: 0 });
    expect(result.ledger).toEqual({ budgetUsd: 0.45, spentUsd: 0.4 });
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(4);
  });

  it('shows which items wait at a checkpoint in its own progress, and goes on once they are answered', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(
      fastResearch(2, 'concurrency: 2\nbudget_usd: 5').replace('    mode: fast', '    mode: fast\n    hitl: { plan_review: true }'),
      world,
      { runKey: 'reviewed' },
    );
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/scan/reviewed', args: [input] });
    await env.waitUntil(async () => (await handle.query(pipelineRunStateQuery)).waiting.checkpoint.length === 2, {
      timeoutMs: 3_600_000,
      description: 'both items at their plan review',
    });
    const state = await handle.query(pipelineRunStateQuery);
    expect(state.waiting).toEqual({ checkpoint: ['company-1-example', 'company-2-example'].sort(), operator: [] });
    for (const key of state.waiting.checkpoint) {
      const item = env.getHandle(pipelineItemWorkflowId('scan', 'reviewed', key));
      const interaction = (await item.query(researchTaskStateQuery)).interaction!;
      await item.executeUpdate(respondToCheckpointUpdate, { interactionId: interaction.interaction_id, response: { approved: true } });
    }
    await env.waitUntil(async () => (await handle.query(pipelineRunStateQuery)).waiting.checkpoint.length === 0, {
      description: 'the answered items to stop waiting',
    });
    const result = await handle.result();
    await recordHistory(handle, 'pipeline-checkpoint-wait');
    expect(result.counts).toMatchObject({ completed: 2, failed: 0 });
  });

  it('pauses starts, resumes them, and on cancel stops the children and keeps what finished', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(fastResearch(6, 'concurrency: 1\nbudget_usd: 5'), world, { runKey: 'controls' });
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/scan/controls', args: [input] });
    await env.waitUntil(async () => (await handle.query(pipelineRunStateQuery)).running.length === 1, { description: 'the first item to start' });
    await handle.signal(pausePipelineSignal, { reason: 'checking the first result' });
    await handle.signal(pausePipelineSignal, { colour: 'red' } as never);
    await env.waitUntil(async () => (await handle.query(pipelineRunStateQuery)).phase === 'paused', { description: 'the pause' });
    await env.waitUntil(async () => (await handle.query(pipelineRunStateQuery)).counts.completed === 1, {
      timeoutMs: 3_600_000,
      description: 'the first item to finish',
    });
    await env.sleep(10 * 60_000);
    const paused = await handle.query(pipelineRunStateQuery);
    expect(paused).toMatchObject({ phase: 'paused', running: [] });
    expect(paused.rejectedMessages).toEqual(['pausePipeline refused: unknown field "colour" (allowed: reason)']);
    // An update is refused by its validator, naming the field; nothing is recorded and the ledger is unchanged.
    await expect(handle.executeUpdate(raiseBudgetUpdate, { addUsd: 'lots' } as never)).rejects.toThrow('addUsd: must be a number more than 0');
    expect((await handle.query(pipelineRunStateQuery)).ledger.budgetUsd).toBe(5);
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(1);
    await handle.signal(resumePipelineSignal);
    await env.waitUntil(async () => (await handle.query(pipelineRunStateQuery)).counts.completed === 2, {
      timeoutMs: 3_600_000,
      description: 'a second item after resuming',
    });
    await env.waitUntil(async () => (await handle.query(pipelineRunStateQuery)).running.length === 1, { description: 'the third item to start' });
    const [runningKey] = (await handle.query(pipelineRunStateQuery)).running;
    const child = env.getHandle(`research-task/scan/controls/${runningKey}`);
    await env.waitUntil(async () => (await child.query(researchTaskStateQuery)).deepresearchId !== undefined, { description: 'the child to create its task' });
    await handle.cancel();
    const result = await cancelledRun(handle);
    await recordHistory(handle, 'pipeline-pause-cancel');
    expect(result.phase).toBe('cancelled');
    expect(result.counts).toMatchObject({ completed: 2, cancelled: 1 });
    // The cancelled item's cost reached the run through its report (a Canceled child carries no result).
    const item = await cancelledTask(child);
    expect(item).toMatchObject({ status: 'cancelled' });
    expect(result.ledger.spentUsd).toBeGreaterThan(0);
    const lines = (await readFile(fileURLToPath(result.outputs!.files[0]!.uri), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { status: string });
    expect(lines.map((line) => line.status)).toEqual(['completed', 'completed', 'cancelled', 'not_started', 'not_started', 'not_started']);
    expect(await handle.searchAttributes()).toMatchObject({ ResearchStatus: 'cancelled' });
  });

  it('retries a failed item, records it failed, refuses an item its templates cannot render, and a resumed run redoes only the failures', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const yaml = `
name: answers
input:
  items:
    - { id: alpha, name: Alpha }
    - { id: beta, name: Beta }
    - { id: gamma, name: Gamma }
    - { id: delta, nickname: Delta }
  key: "{{ item.id }}"
step:
  answer:
    query: "Headcount of {{ item.name }}"
    data_max_price: 0.2
concurrency: 2
start_rate_per_second: 50
budget_usd: 2
retries: 1
`;
    const input = await pipelineInput(yaml, world, { runKey: 'flaky' });
    const attempts: Record<string, number> = {};
    let real: ((args: never) => Promise<unknown>) | undefined;
    replaceActivity('runPipelineItem', (original) => async (args) => {
      real = original;
      attempts[args.key] = (attempts[args.key] ?? 0) + 1;
      if (args.key === 'beta') throw ApplicationFailure.create({ type: FailureType.ServiceUnavailable, message: 'the service fell over', nonRetryable: true });
      return original(args);
    });
    const first = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/answers/flaky', args: [input] });
    const result = await first.result();
    await recordHistory(first, 'pipeline-answer-retries');
    expect(result.counts).toMatchObject({ read: 4, completed: 2, failed: 2 });
    expect(attempts).toEqual({ alpha: 1, beta: 2, gamma: 1 });
    const state = await first.query(pipelineRunStateQuery);
    expect([...state.failures].sort((a, b) => a.key.localeCompare(b.key))).toEqual([
      { key: 'beta', attempts: 2, error: 'the service fell over' },
      { key: 'delta', attempts: 0, error: 'item "delta" (item 4): step.answer: {{ item.name }}: missing variable item.name (item has: id, nickname)' },
    ]);
    expect(world.emulator.stats.snapshot().requests.answer).toEqual({ 200: 2 });

    // The service recovers; the same run key runs again and redoes only what failed.
    replaceActivity('runPipelineItem', (original) => async (args) => {
      attempts[args.key] = (attempts[args.key] ?? 0) + 1;
      return (real ?? original)(args as never) as ReturnType<typeof original>;
    });
    const again = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/answers/flaky', args: [input] });
    const resumed = await again.result();
    expect(resumed.counts).toMatchObject({ reused: 2, completed: 1, failed: 1 });
    expect(attempts).toEqual({ alpha: 1, beta: 3, gamma: 1 });
    expect(world.emulator.stats.snapshot().requests.answer).toEqual({ 200: 3 });
    const lines = (await readFile(fileURLToPath(resumed.outputs.files[0]!.uri), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { key: string; status: string; output?: unknown });
    expect(lines.map((line) => [line.key, line.status])).toEqual([
      ['alpha', 'completed'],
      ['beta', 'completed'],
      ['gamma', 'completed'],
      ['delta', 'failed'],
    ]);
  });

  it('pauses the run when credits run out (402) and goes on once topped up and resumed', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 0.35 } });
    const input = await pipelineInput(
      `
name: cheap
input:
  items: [a, b, c, d, e, f]
  key: "{{ item }}"
step:
  answer:
    query: "What is {{ item }}?"
    data_max_price: 0.05
concurrency: 1
start_rate_per_second: 50
budget_usd: 5
`,
      world,
      { runKey: 'credits' },
    );
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/cheap/credits', args: [input] });
    await env.waitUntil(async () => (await handle.query(pipelineRunStateQuery)).phase === 'credits_exhausted', { description: 'credits to run out' });
    const stopped = await handle.query(pipelineRunStateQuery);
    expect(stopped.counts.completed).toBeGreaterThan(0);
    expect(stopped.counts.failed).toBe(0);
    expect(stopped.detail).toContain('402');
    world.emulator.accounts.topUp(world.emulator.defaultApiKey, 10);
    await handle.signal(resumePipelineSignal);
    const result = await handle.result();
    await recordHistory(handle, 'pipeline-credits-wait');
    expect(result.counts).toMatchObject({ completed: 6, failed: 0 });
  });

  it('runs the synthesis over the collected results and puts it in the Markdown digest', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(
      `
name: brief
input:
  items: [Acme, Globex]
  key: "{{ item | slug }}"
step:
  answer:
    query: "What does {{ item }} sell?"
    data_max_price: 0.05
start_rate_per_second: 50
budget_usd: 2
synthesis:
  answer:
    query: "Compare the companies for {{ pipeline.name }}"
    data_max_price: 0.05
outputs:
  - format: markdown
`,
      world,
      { runKey: 'synth' },
    );
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/brief/synth', args: [input] });
    const result = await handle.result();
    await recordHistory(handle, 'pipeline-synthesis');
    expect(result.outputs.synthesis?.key).toBe('pipelines/brief/synth/results/~synthesis.json');
    const stored = JSON.parse(await readFile(fileURLToPath(result.outputs.synthesis!.uri), 'utf8')) as { output: string };
    expect(stored.output.length).toBeGreaterThan(0);
    expect(world.emulator.stats.snapshot().requests.answer).toEqual({ 200: 3 });
    // The digest carries the synthesis's answer itself, not a link to a file on the worker's disk.
    const digest = await readFile(fileURLToPath(result.outputs.files[0]!.uri), 'utf8');
    expect(digest).toContain(`## Synthesis\n\n> ${stored.output.split('\n')[0]!.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}`);
    expect(digest).not.toContain('~synthesis.json');
  });
});
