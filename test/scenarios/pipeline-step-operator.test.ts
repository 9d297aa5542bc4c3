import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli';
import { pipelineStepWorkflowId } from '../../src/domain/ids';
import { loadPipelineDefinition } from '../../src/pipelines';
import type { ItemStepView } from '../../src/runs/item-steps';
import { startPipeline } from '../../src/runs/start';
import { researchTaskStateQuery } from '../../src/workflows/definitions';
import { captureCli } from '../support/capture-io';
import { describeScenarios } from '../support/scenario-env';
import { scenarioIntake } from '../support/scenario-intake';
import { pipelineInput } from './pipeline-world';
import { testServer } from '../support/server/test-server';
import { makeWorld, researchSetup, type ResearchWorld } from './world';

/** Requests a route answered, whatever the status. */
const calls = (byStatus: Record<string, number> | undefined): number => Object.values(byStatus ?? {}).reduce((sum, count) => sum + count, 0);

const TOKEN = 'app-token-0123456789abcdef';

/** Two items, each a Search then a DeepResearch step that stops at a plan review until a person answers it. */
const DEFINITION = `
name: step-ops
input:
  items: [Acme, Globex]
  key: "{{ item | slug }}"
steps:
  - id: news
    search:
      query: "{{ item }} news"
      search_type: web
      max_num_results: 3
      max_price: 1
  - id: brief
    deepresearch:
      query: "Profile of {{ item }}"
      mode: fast
      hitl: { plan_review: true }
concurrency: 2
start_rate_per_second: 50
budget_usd: 5
`;

/**
 * An operator steers a `steps:` item through the `rp` entry point, as from a shell: `rp status --item`
 * shows the step task's plan review, `rp respond --item` answers it, `rp cancel --item` cancels the
 * other item's step task, and a step with no task is refused with where the item is.
 */
describeScenarios('rp respond, cancel and status on a steps: item', researchSetup, (getEnv) => {
  const cli = captureCli('rp-steps-');
  let world: ResearchWorld | undefined;
  const saved = { address: process.env.TEMPORAL_ADDRESS, namespace: process.env.TEMPORAL_NAMESPACE };
  beforeEach(() => {
    errSeen = 0;
    const server = testServer();
    if (!server.available) throw new Error('no test server');
    process.env.TEMPORAL_ADDRESS = server.address;
    process.env.TEMPORAL_NAMESPACE = server.namespace;
  });
  afterEach(async () => {
    await world?.close();
    for (const [name, value] of [
      ['TEMPORAL_ADDRESS', saved.address],
      ['TEMPORAL_NAMESPACE', saved.namespace],
    ] as const)
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  });

  /** `rp <args>` as a shell runs it: its exit code, what it printed, then the capture forgets it. */
  let errSeen = 0;
  const rp = async (...args: string[]): Promise<{ code: number; out: string; err: string }> => {
    const code = await main(args);
    // The command's own stderr lines (the worker in this process logs there too).
    const err = cli
      .err()
      .slice(errSeen)
      .split('\n')
      .filter((line) => line.startsWith(`${args[0]}: `))
      .map((line) => `${line}\n`)
      .join('');
    errSeen = cli.err().length;
    const printed = { code, out: cli.out(), err };
    cli.clearOut();
    return printed;
  };
  const steps = async (run: string, item: string): Promise<ItemStepView[]> => {
    const { code, out } = await rp('status', run, '--item', item, '--json');
    expect(code).toBe(0);
    return (JSON.parse(out) as { steps: ItemStepView[] }).steps;
  };

  it("answers a step task's plan review with rp respond --item, cancels another's with rp cancel --item, and refuses a step with no task", async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'rp-steps-')), 'step-ops.yaml');
    await writeFile(file, DEFINITION);
    const { handle } = await startPipeline(
      env.client,
      await loadPipelineDefinition(file),
      {},
      { runKey: 'ops', taskQueue: env.taskQueue, polling: world.polling },
    );
    const run = 'step-ops/ops';

    // The first item reaches its brief step, whose task waits at its plan review (the second waits for
    // the first's price: the service does not bound the step's).
    const atReview = (item: string) =>
      env.waitUntil(async () => (await steps(run, item))[1]?.interaction !== undefined, {
        timeoutMs: 3_600_000,
        description: `${item}'s brief step at its plan review`,
      });
    await atReview('acme');
    const acmeBrief = pipelineStepWorkflowId('step-ops', 'ops', 'acme', 'brief', undefined);
    const [news, brief] = await steps(run, 'acme');
    expect(news).toMatchObject({ id: 'news', kind: 'search' });
    expect(brief).toMatchObject({ id: 'brief', kind: 'deepresearch', workflowId: acmeBrief, status: 'awaiting_input', open: true });
    const interaction = brief!.interaction!.interaction_id;

    // The text status names the checkpoint and the command that answers it; the run's, the item waiting.
    const shown = await rp('status', run, '--item', 'acme');
    expect(shown.out).toContain(`answer: rp respond ${run} --item acme --interaction ${interaction} --response '{"approved": true}'`);
    expect((await rp('status', run)).out).toContain('waiting on a checkpoint: 1 (acme; answer with rp respond)');

    // A step with no task of its own is refused, naming it.
    const call = await rp('respond', run, '--item', 'acme', '--step', 'news', '--interaction', interaction, '--response', '{"approved": true}');
    expect(call.code).toBe(1);
    expect(call.err).toBe('respond: step news of item acme is a Search call, which has no task to respond to\n');

    // Answered through the item: the running step task takes it.
    const answered = await rp('respond', run, '--item', 'acme', '--interaction', interaction, '--response', '{"approved": true}');
    expect(answered).toMatchObject({ code: 0, out: `answer accepted for interaction ${interaction}\n` });

    // Cancelled through the item: the step's task, not the run.
    await atReview('globex');
    const cancelled = await rp('cancel', run, '--item', 'globex');
    expect(cancelled).toMatchObject({ code: 0, out: `cancel requested: ${pipelineStepWorkflowId('step-ops', 'ops', 'globex', 'brief', undefined)}\n` });

    const result = await handle.result();
    expect(result).toMatchObject({ counts: { completed: 1, cancelled: 1, failed: 0 } });
    // Paid once, from the service's books: one Search per item, one task per item, the ledger at the charge.
    const books = world.emulator.stats.snapshot();
    expect(calls(books.requests.search)).toBe(2);
    expect(books.tasksCreated).toBe(2);
    expect(result.ledger.spentUsd).toBeCloseTo(books.chargedUsd, 6);
    const after = await steps(run, 'acme');
    expect(after[1]).toMatchObject({ workflowId: acmeBrief, status: 'completed', open: false });

    // The run has ended: nothing of acme's is in flight, and the refusal says so with its steps.
    const late = await rp('respond', run, '--item', 'acme', '--interaction', interaction, '--response', '{"approved": true}');
    expect(late.code).toBe(1);
    expect(late.err).toBe(
      'respond: item acme is not in flight, so no step task to respond to (its steps: news · search (a call); brief · deepresearch: completed (ended))\n',
    );
    const lateCancel = await rp('cancel', run, '--item', 'globex', '--json');
    expect(lateCancel.code).toBe(1);
    expect(JSON.parse(lateCancel.out)).toMatchObject({ error: { kind: 'refused', message: expect.stringMatching(/^cancel: item globex is not in flight/) } });
  });

  it("the intake's checkpoint and cancel routes reach a steps: item's step task, and answer 409 for a step with none", async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(DEFINITION, world, { runKey: 'http' });
    const handle = await env.start<unknown>('pipelineRunWorkflow', { workflowId: 'pipeline-run/step-ops/http', args: [input] });
    const run = 'step-ops/http';
    await env.waitUntil(async () => (await steps(run, 'acme'))[1]?.interaction !== undefined, {
      timeoutMs: 3_600_000,
      description: "acme's brief step at its plan review",
    });
    const interaction = (await steps(run, 'acme'))[1]!.interaction!.interaction_id;
    const intake = await scenarioIntake(env, { secrets: world.secrets, intakeKey: 'k'.repeat(32) }, { tokens: [TOKEN], pipelinesDir: 'pipelines' });
    try {
      const headers = { authorization: `Bearer ${TOKEN}` };
      const url = '/pipelines/step-ops/runs/http/items/acme/checkpoint';
      const call = await intake.app.inject({
        method: 'POST',
        url,
        headers,
        payload: { interactionId: interaction, response: { approved: true }, step: 'news' },
      });
      expect(call.statusCode).toBe(409);
      expect(call.json()).toMatchObject({ code: 'no_step_task', error: 'step news of item acme is a Search call, which has no task to respond to' });
      const right = await intake.app.inject({ method: 'POST', url, headers, payload: { interactionId: interaction, response: { approved: true } } });
      expect(right.statusCode).toBe(200);
      expect(right.json()).toEqual({ accepted: true, interactionId: interaction });

      const cancelUrl = '/pipelines/step-ops/runs/http/cancel';
      const stepAlone = await intake.app.inject({ method: 'POST', url: cancelUrl, headers, payload: { step: 'brief' } });
      expect(stepAlone.statusCode).toBe(422);
      await env.waitUntil(async () => (await steps(run, 'globex'))[1]?.interaction !== undefined, {
        timeoutMs: 3_600_000,
        description: "globex's brief step at its plan review",
      });
      const cancel = await intake.app.inject({ method: 'POST', url: cancelUrl, headers, payload: { item: 'globex', step: 'brief' } });
      expect(cancel.statusCode).toBe(202);
      expect(cancel.json()).toEqual({ cancelRequested: pipelineStepWorkflowId('step-ops', 'http', 'globex', 'brief', undefined) });
      await expect(handle.result()).resolves.toMatchObject({ counts: { completed: 1, cancelled: 1 } });
      expect(world.emulator.stats.snapshot().tasksCreated).toBe(2);
    } finally {
      await intake.app.close();
    }
  });

  it("resumes a steps: item's step task after a 402 with rp resume --item, once credits are topped up", async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 0 } });
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'rp-steps-')), 'step-credits.yaml');
    await writeFile(
      file,
      `
name: step-credits
input:
  items: [Acme]
  key: "{{ item | slug }}"
steps:
  - id: brief
    deepresearch:
      query: "Profile of {{ item }}"
      mode: fast
concurrency: 1
budget_usd: 5
`,
    );
    const { handle } = await startPipeline(
      env.client,
      await loadPipelineDefinition(file),
      {},
      { runKey: 'ops', taskQueue: env.taskQueue, polling: world.polling },
    );
    const task = env.getHandle(pipelineStepWorkflowId('step-credits', 'ops', 'acme', 'brief', undefined));
    await env.waitUntil(async () => (await task.query(researchTaskStateQuery).catch(() => undefined))?.waitingFor === 'credits_exhausted', {
      timeoutMs: 3_600_000,
      description: "the brief step's task waiting for credits",
    });
    world.emulator.accounts.topUp(world.emulator.defaultApiKey, 10);
    const resumed = await rp('resume', 'step-credits/ops', '--item', 'acme', '--json');
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.out)).toEqual({ resume: true, workflowId: task.workflowId });
    const result = await handle.result();
    expect(result).toMatchObject({ counts: { completed: 1, failed: 0 } });
    // One task at the service, paid once: the ledger is what the emulator charged.
    const books = world.emulator.stats.snapshot();
    expect(books.tasksCreated).toBe(1);
    expect(result.ledger.spentUsd).toBeCloseTo(books.chargedUsd, 6);
  });
});
