import type { Interaction } from '../../src/api/schemas';
import { addInstructionUpdate, checkpointResponseSignal, researchTaskStateQuery, respondToCheckpointUpdate } from '../../src/workflows/definitions';
import type { CheckpointAnswer, ResearchTaskState } from '../../src/workflows/types';
import { describeScenarios, recordHistory, type ScenarioHandle } from '../support/scenario-env';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../src/domain/failures';
import { makeWorld, replaceActivity, researchSetup, type ResearchWorld } from './world';
import type { ResearchTaskResult } from '../../src/domain/research-types';

/** A right answer for each checkpoint type, built from what the interaction shows. */
function rightAnswer(interaction: Interaction): CheckpointAnswer {
  const data = (interaction.data ?? {}) as { questions?: Array<{ question: string }>; domains?: string[] };
  switch (interaction.type) {
    case 'planning_questions':
      return {
        interactionId: interaction.interaction_id,
        response: { answers: (data.questions ?? []).map(({ question }) => ({ question, answer: 'Focus on Europe, for analysts.' })) },
      };
    case 'plan_review':
      return { interactionId: interaction.interaction_id, response: { approved: false, modifications: 'Add a section on pricing.' } };
    case 'source_review':
      return {
        interactionId: interaction.interaction_id,
        response: { included_domains: (data.domains ?? []).slice(0, 2), excluded_domains: (data.domains ?? []).slice(2, 3) },
      };
    case 'outline_review':
      return { interactionId: interaction.interaction_id, response: { approved: true } };
  }
}

/** A wrong answer for each type: the shape of another checkpoint. */
function wrongAnswer(interaction: Interaction): CheckpointAnswer {
  const response = interaction.type === 'planning_questions' ? { approved: true } : { answers: [{ question: 'q', answer: 'a' }] };
  return { interactionId: interaction.interaction_id, response } as CheckpointAnswer;
}

describeScenarios('researchTaskWorkflow: checkpoints and instructions', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  async function waitForCheckpoint(
    handle: ScenarioHandle<unknown>,
    seen: Set<string>,
    status: ResearchTaskState['status'] = 'awaiting_input',
  ): Promise<Interaction> {
    let state: ResearchTaskState | undefined;
    await getEnv().waitUntil(
      async () => {
        state = await handle.query(researchTaskStateQuery);
        return state.status === status && state.interaction !== undefined && !seen.has(state.interaction.interaction_id);
      },
      { timeoutMs: 3 * 3_600_000, description: `a new checkpoint in status ${status}` },
    );
    seen.add(state!.interaction!.interaction_id);
    return state!.interaction!;
  }

  it('takes an answer to each checkpoint type, by update and by signal, and rejects wrong ones', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    const hitl = { planning_questions: true, plan_review: true, source_review: true, outline_review: true };
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'all-checkpoints',
      args: [{ request: { query: 'EV charging market in Europe', mode: 'standard', hitl }, polling: world.polling }],
    });
    const seen = new Set<string>();
    const types: string[] = [];
    for (let index = 0; index < 4; index++) {
      const interaction = await waitForCheckpoint(handle, seen);
      types.push(interaction.type);
      expect(await handle.searchAttributes()).toMatchObject({ ResearchStatus: 'awaiting_input' });
      // A wrong shape is refused synchronously by the update's validator (zod, in the sandbox), naming the field ...
      const namesTheField = new RegExp(`^response\\.(answers|approved|included_domains): .*\\(a ${interaction.type} checkpoint takes `);
      await expect(handle.executeUpdate(respondToCheckpointUpdate, wrongAnswer(interaction))).rejects.toThrow(namesTheField);
      // ... and an answer for another interaction is refused, naming both ids.
      await expect(handle.executeUpdate(respondToCheckpointUpdate, { ...rightAnswer(interaction), interactionId: 'int_other' })).rejects.toThrow(
        `answer is for interaction int_other, but the current one is ${interaction.interaction_id}`,
      );
      // A bad signal cannot be refused to its sender: it is recorded and the workflow keeps waiting.
      await handle.signal(checkpointResponseSignal, wrongAnswer(interaction));
      const state = await handle.query(researchTaskStateQuery);
      expect(state.rejectedAnswers.at(-1)).toMatchObject({ interactionId: interaction.interaction_id, reason: expect.stringMatching(namesTheField) });
      expect(state.interaction?.interaction_id).toBe(interaction.interaction_id);
      if (index % 2 === 0) {
        await expect(handle.executeUpdate(respondToCheckpointUpdate, rightAnswer(interaction))).resolves.toEqual({
          accepted: true,
          interactionId: interaction.interaction_id,
        });
      } else {
        await handle.signal(checkpointResponseSignal, rightAnswer(interaction));
      }
    }
    expect(types).toEqual(['planning_questions', 'plan_review', 'source_review', 'outline_review']);
    const result = await handle.result();
    expect(result.status).toBe('completed');
    // Every checkpoint was answered as soon as the workflow showed it: far less than the 5-minute timeout.
    expect(result.timings.waitingForInputMs * env.speed).toBeLessThan(5 * 60_000);
    const task = await world.api.getTask(result.deepresearchId);
    expect(task.hitl_history).toHaveLength(4);
    await recordHistory(handle, 'task-checkpoints');
  });

  it('keeps waiting when the service refuses an answer, by signal or by update, and takes the next one', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    let refusals = 2;
    replaceActivity('answerResearchCheckpoint', (original) => async (input) => {
      if (refusals-- > 0) throw ApplicationFailure.create({ type: FailureType.InvalidRequest, message: 'interaction is no longer active', nonRetryable: true });
      return original(input);
    });
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'refused-answer',
      args: [{ request: { query: 'Heat pump adoption', mode: 'fast', hitl: { plan_review: true } }, polling: world.polling }],
    });
    const interaction = await waitForCheckpoint(handle, new Set());
    const approve: CheckpointAnswer = { interactionId: interaction.interaction_id, response: { approved: true } };
    await handle.signal(checkpointResponseSignal, approve);
    // A signal is handled in a later workflow task, after the answer activity: wait for its outcome.
    let state = await handle.query(researchTaskStateQuery);
    await env.waitUntil(async () => (state = await handle.query(researchTaskStateQuery)).rejectedAnswers.length > 0, {
      description: 'the refused answer recorded',
    });
    expect(state.rejectedAnswers.at(-1)?.reason).toContain('the service refused the answer: interaction is no longer active');
    await expect(handle.executeUpdate(respondToCheckpointUpdate, approve)).rejects.toThrow(/the service refused the answer/);
    await env.waitUntil(async () => (await handle.query(researchTaskStateQuery)).interaction?.interaction_id === interaction.interaction_id, {
      description: 'the checkpoint shown again',
    });
    await expect(handle.executeUpdate(respondToCheckpointUpdate, approve)).resolves.toEqual({ accepted: true, interactionId: interaction.interaction_id });
    expect((await handle.result()).status).toBe('completed');
  });

  it('answers a checkpoint that timed out into paused, later', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'paused',
      args: [{ request: { query: 'Offshore wind supply chain', mode: 'fast', hitl: { plan_review: true } }, polling: world.polling }],
    });
    const interaction = await waitForCheckpoint(handle, new Set(), 'paused');
    expect((await handle.query(researchTaskStateQuery)).detail).toMatch(/^paused at plan_review/);
    await world.pass(30 * 60_000);
    await handle.signal(checkpointResponseSignal, { interactionId: interaction.interaction_id, response: { approved: true } });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    // Timings are workflow time (real time here); the emulator paused the task after 5 minutes of its own time.
    expect(result.timings.waitingForInputMs * env.speed).toBeGreaterThanOrEqual(5 * 60_000);
  });

  it('continues as new while it waits at a checkpoint, carrying what it knows, and creates nothing twice', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'long-wait',
      args: [{ request: { query: 'Desalination capacity', mode: 'fast', hitl: { plan_review: true } }, polling: world.polling, continueAsNewAfterEvents: 20 }],
    });
    const interaction = await waitForCheckpoint(handle, new Set());
    await handle.signal(checkpointResponseSignal, wrongAnswer(interaction));
    await env.waitUntil(async () => (await handle.query(researchTaskStateQuery)).rejectedAnswers.length === 1, { description: 'the wrong answer recorded' });
    const runsBefore = await handle.runCount();
    const pollsBefore = (await handle.query(researchTaskStateQuery)).polls;
    // Nobody answers for a while: the checkpoint pauses and the workflow keeps polling, rarely.
    await env.waitUntil(async () => (await handle.runCount()) > runsBefore, { timeoutMs: 6 * 3_600_000, description: 'a continue-as-new at the checkpoint' });
    const state = await handle.query(researchTaskStateQuery);
    expect(state.rejectedAnswers).toHaveLength(1);
    expect(state.polls).toBeGreaterThanOrEqual(pollsBefore);
    expect(state.interaction?.interaction_id).toBe(interaction.interaction_id);
    await handle.signal(checkpointResponseSignal, { interactionId: interaction.interaction_id, response: { approved: true } });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(await handle.runCount()).toBeGreaterThanOrEqual(2);
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(1);
    expect(result.timings.waitingForInputMs).toBeGreaterThan(0);
  });

  it('forwards an instruction while the task runs and rejects one in the writing phase', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'instructions',
      args: [{ request: { query: 'Hydrogen electrolyser costs', mode: 'standard' }, polling: world.polling }],
    });
    await env.waitUntil(async () => (await handle.query(researchTaskStateQuery)).status === 'running', { description: 'running' });
    await expect(handle.executeUpdate(addInstructionUpdate, 'Compare PEM and alkaline.')).resolves.toEqual({ accepted: true });
    await env.waitUntil(
      async () => {
        const progress = (await handle.query(researchTaskStateQuery)).progress;
        return progress !== undefined && progress.currentStep >= 14;
      },
      { timeoutMs: 3_600_000, description: 'the writing phase' },
    );
    await expect(handle.executeUpdate(addInstructionUpdate, 'Also cover Asia.')).rejects.toThrow(/instruction refused/);
    await expect(handle.executeUpdate(addInstructionUpdate, '   ')).rejects.toThrow(/non-empty/);
    const state = await handle.query(researchTaskStateQuery);
    expect(state.instructions.map(({ accepted }) => accepted)).toEqual([true, false]);
    const result = await handle.result();
    expect(result.status).toBe('completed');
    await expect(handle.executeUpdate(addInstructionUpdate, 'Too late')).rejects.toThrow();
  });
});
