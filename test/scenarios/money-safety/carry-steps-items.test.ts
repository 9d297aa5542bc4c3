import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { pipelineRunStateQuery, researchTaskStateQuery, respondToCheckpointUpdate } from '../../../src/workflows/definitions';
import { pipelineStepWorkflowId } from '../../../src/domain/ids';
import type { PipelineItemRecord, PipelineRunResult } from '../../../src/domain/pipeline-types';
import { notifySecret, startReceiver } from '../../support/notify-receiver';
import { describeScenarios, recordHistory } from '../../support/scenario-env';
import { companies, pipelineInput } from '../pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from '../world';
import { cancelledRun } from '../../support/cancelled';

/** Requests a route answered, whatever the status (a Search capped by max_price answers 206). */
const calls = (byStatus: Record<string, number> | undefined): number => Object.values(byStatus ?? {}).reduce((sum, count) => sum + count, 0);

// A `steps:` item used to hold a draining run until its steps ended: one DeepResearch step waiting for a
// person held every new start of the run for as long as nobody answered.
describeScenarios('money safety: continue-as-new with a steps item inside its DeepResearch step', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  let closeReceiver: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await world?.close();
    await closeReceiver?.();
  });

  it('carries the item into the next execution, which follows its step task and goes on with the next step: each step paid once', async () => {
    const env = getEnv();
    const secret = notifySecret();
    const receiver = await startReceiver(secret);
    closeReceiver = receiver.close;
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 }, deps: { notifySecret: secret } });
    const items = 4;
    const input = await pipelineInput(
      `
name: stepped
input:
  items:
${companies(items)}
  key: "{{ item.domain | slug }}"
steps:
  - id: profile
    answer:
      query: Where is {{ item.name }} ({{ item.domain }}) headquartered?
  - id: brief
    deepresearch:
      query: "Profile {{ item.name }}"
      mode: fast
      hitl: { plan_review: true }
  - id: news
    search:
      query: "{{ item.name }} news"
      max_num_results: 3
      max_price: 1
      response_length: 800
concurrency: 2
start_rate_per_second: 50
budget_usd: 5
notify: ["${receiver.url}/hook"]
`,
      world,
      { runKey: 'carry', continueAsNewAfterEvents: 40 },
    );
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/stepped/carry', args: [input] });
    const held = 'company-1-example';
    const briefOf = (key: string) => env.getHandle(pipelineStepWorkflowId('stepped', 'carry', key, 'brief', undefined));
    const answered = new Set<string>();
    // Every brief's plan review is answered but the first item's, which nobody answers until the others are done.
    await env.waitUntil(
      async () => {
        const state = await handle.query(pipelineRunStateQuery);
        for (const key of state.waiting.checkpoint.filter((key) => key !== held && !answered.has(key))) {
          const interaction = (await briefOf(key).query(researchTaskStateQuery)).interaction;
          if (!interaction) continue;
          await briefOf(key).executeUpdate(respondToCheckpointUpdate, { interactionId: interaction.interaction_id, response: { approved: true } });
          answered.add(key);
        }
        return state.counts.completed === items - 1;
      },
      { timeoutMs: 3_600_000, description: `the ${items - 1} answered items to complete while ${held} waits in its brief step` },
    );
    const waiting = await handle.query(pipelineRunStateQuery);
    // The run went past its history threshold with the held item inside its brief: carried, not waited for.
    expect(waiting.executions).toBeGreaterThan(1);
    expect(waiting.running).toEqual([held]);
    expect(waiting.waiting.checkpoint).toEqual([held]);
    expect((await env.client.workflow.getHandle(pipelineStepWorkflowId('stepped', 'carry', held, 'brief', undefined)).describe()).status.name).toBe('RUNNING');

    const interaction = (await briefOf(held).query(researchTaskStateQuery)).interaction!;
    await briefOf(held).executeUpdate(respondToCheckpointUpdate, { interactionId: interaction.interaction_id, response: { approved: true } });
    const result = await handle.result();
    await recordHistory(handle, 'pipeline-carries-steps-item', 'first');
    await recordHistory(handle, 'pipeline-adopts-steps-item');
    expect(result.counts).toMatchObject({ read: items, completed: items, failed: 0, cancelled: 0 });

    // From the service's books: one Answer, one task and one Search per item, and the ledger shows what it charged.
    const books = world.emulator.stats.snapshot();
    expect(books.requests.answer).toEqual({ 200: items });
    expect(books.tasksCreated).toBe(items);
    expect(Math.max(...Object.values(books.tasksCreatedByMetadata))).toBe(1);
    expect(calls(books.requests.search)).toBe(items);
    expect(result.ledger.spentUsd).toBeCloseTo(books.chargedUsd, 6);

    const lines = (await readFile(fileURLToPath(result.outputs.files[0]!.uri), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { key: string; status: string; cost_usd: number; steps: Record<string, { status: string; cost_usd: number }> });
    expect(lines).toHaveLength(items);
    for (const line of lines) {
      expect([line.key, line.status, line.steps.profile?.status, line.steps.brief?.status, line.steps.news?.status]).toEqual([
        line.key,
        'completed',
        'completed',
        'completed',
        'completed',
      ]);
      expect(line.cost_usd).toBeCloseTo(
        Object.values(line.steps).reduce((sum, step) => sum + step.cost_usd, 0),
        6,
      );
    }
    expect(lines.reduce((sum, line) => sum + line.cost_usd, 0)).toBeCloseTo(books.chargedUsd, 6);

    // Each item waited once for a person, and each wait was told once: every waiting_for_person event
    // tells of an item no earlier one did (the held item's wait is not told again by a later execution).
    const told = new Set<string>();
    const events = receiver.deliveries.filter((delivery) => delivery.event?.type === 'run.waiting_for_person').map((delivery) => delivery.event!);
    for (const event of events) {
      const waiting = (event.data.waiting as { checkpoint: string[] }).checkpoint;
      expect(waiting.filter((key) => !told.has(key))).not.toEqual([]);
      for (const key of waiting) told.add(key);
    }
    expect([...told].sort()).toEqual(lines.map((line) => line.key).sort());
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
  });

  it('cancels a carried item in its DeepResearch step when the run is cancelled: the task is cancelled, the steps before it kept, nothing paid twice', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(
      `
name: stepped
input:
  items:
${companies(3)}
  key: "{{ item.domain | slug }}"
steps:
  - id: profile
    answer:
      query: Where is {{ item.name }} ({{ item.domain }}) headquartered?
  - id: brief
    deepresearch:
      query: "Profile {{ item.name }}"
      mode: fast
      hitl: { plan_review: true }
concurrency: 1
start_rate_per_second: 50
budget_usd: 5
`,
      world,
      { runKey: 'cancelled', continueAsNewAfterEvents: 20 },
    );
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/stepped/cancelled', args: [input] });
    const held = 'company-1-example';
    await env.waitUntil(
      async () => {
        const state = await handle.query(pipelineRunStateQuery);
        return state.executions > 1 && state.waiting.checkpoint.includes(held);
      },
      { timeoutMs: 3_600_000, description: 'the first item carried into a later execution, waiting in its brief step' },
    );
    await handle.cancel();
    const result = await cancelledRun(handle);
    expect(result.phase).toBe('cancelled');
    expect(result.counts).toMatchObject({ cancelled: 1, completed: 0, failed: 0 });
    const brief = env.client.workflow.getHandle(pipelineStepWorkflowId('stepped', 'cancelled', held, 'brief', undefined));
    expect((await brief.describe()).status.name).not.toBe('RUNNING');
    const books = world.emulator.stats.snapshot();
    expect(books.requests.answer).toEqual({ 200: 1 });
    expect(books.tasksCreated).toBe(1);
    expect(result.ledger.spentUsd).toBeCloseTo(books.chargedUsd, 6);
    const record = JSON.parse(Buffer.from(await world.store.get(`pipelines/stepped/cancelled/items/${held}.json`)).toString('utf8')) as PipelineItemRecord;
    expect(record.steps?.map((step) => [step.id, step.status])).toEqual([
      ['profile', 'completed'],
      ['brief', 'cancelled'],
    ]);
    expect(record.costUsd).toBeCloseTo(books.chargedUsd, 6);
  });
});
