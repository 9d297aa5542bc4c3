import { researchTaskStateQuery, resolveCreateOutcomeUpdate } from '../../../src/workflows/definitions';
import { describeScenarios, WorkflowFailedError, WorkflowUpdateFailedError } from '../../support/scenario-env';
import { makeWorld, researchSetup, type ResearchWorld } from '../world';
import type { ResearchTaskResult } from '../../../src/domain/research-types';

const QUERY = 'Rare earth magnets: suppliers outside China';

describeScenarios('money safety: a lost create the look-up cannot settle', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  /** 25 recent tasks with the same query: more candidates than the look-up reads one by one. */
  async function crowdedWorld() {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    for (let index = 0; index < 25; index++) await world.api.createTask({ query: QUERY, mode: 'fast' });
    world.emulator.faults.replace({ 'deepresearch.create': { dropAfterProcessingRate: 1 } });
    return { env, world };
  }

  it("shows the evidence, takes an operator's decision through a validated update, and reports how long it waited", async () => {
    const { env, world: w } = await crowdedWorld();
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'crowded-adopt',
      args: [{ request: { query: QUERY, mode: 'fast' }, polling: w.polling }],
    });
    await env.waitUntil(async () => (await handle.query(researchTaskStateQuery)).detail?.includes('resolveCreateOutcome') ?? false, {
      timeoutMs: 3_600_000,
      description: 'a request for an operator decision',
    });
    const state = await handle.query(researchTaskStateQuery);
    expect(state).toMatchObject({ waitingFor: 'reconciling_create', status: 'creating' });
    expect(state.detail).toMatch(/26 recent tasks could be the one created; too many to check one by one/);
    expect(state.detail).toMatch(/the item fails in \d+ h, not created again/);
    // A malformed decision is refused at once, naming the rule; nothing changes.
    await expect(handle.executeUpdate(resolveCreateOutcomeUpdate, { adopt: 'x' } as never)).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    // The operator finds the task the lost create made (the newest) and adopts it.
    w.emulator.faults.replace({});
    const [newest] = await w.api.listTasks({ limit: 1 });
    expect(await handle.executeUpdate(resolveCreateOutcomeUpdate, { adoptTaskId: newest!.deepresearch_id })).toEqual({ accepted: true, decision: 'adopt' });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', deepresearchId: newest!.deepresearch_id });
    expect(result.timings.reconcilingMs).toBeGreaterThan(0);
    // One task for this workflow at the service (the 25 others were made before it).
    expect(w.emulator.stats.snapshot().tasksCreated).toBe(26);
    await expect(handle.executeUpdate(resolveCreateOutcomeUpdate, { createAgain: true })).rejects.toThrow();
  });

  it('without a decision fails after the bound, saying the task may exist, and never creates it again', async () => {
    const { env, world: w } = await crowdedWorld();
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'crowded-unanswered',
      args: [{ request: { query: QUERY, mode: 'fast' }, polling: { ...w.polling, createDecisionWaitMs: 1_500 } }],
    });
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).type).toBe('ResearchCreateOutcomeUnknown');
    expect((failure as WorkflowFailedError).message).toMatch(/may have made a task at the service .*look for it before running the item again/);
    expect(w.emulator.stats.snapshot().tasksCreated).toBe(26);
  });
});
