import { z } from 'zod';
import { ResearchApiError } from '../../src/api/errors';
import type { Task } from '../../src/api/schemas';
import { asRecord, minutes, type ResearchHarness, startResearchHarness, textField } from '../support/research-harness';

const QUERY = 'Market outlook for grid-scale battery storage in Germany';
const ALL_CHECKPOINTS = { planning_questions: true, plan_review: true, source_review: true, outline_review: true };

async function apiError(promise: Promise<unknown>): Promise<ResearchApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ResearchApiError)) throw new Error(`expected a ResearchApiError, got ${String(error)}`);
  return error;
}

function interactionOf(task: Task): NonNullable<Task['interaction']> {
  if (!task.interaction) throw new Error(`task is ${task.status} without an interaction`);
  return task.interaction;
}

describe('DeepResearch checkpoints', () => {
  let h: ResearchHarness;
  afterEach(async () => h.close());

  async function awaitingTask(hitl: Record<string, boolean>, mode: 'fast' | 'standard' = 'fast'): Promise<{ id: string; task: Task }> {
    const { deepresearch_id: id } = await h.client.createTask({ query: QUERY, mode, hitl });
    await h.advance(minutes(2.5));
    return { id, task: await h.client.getTask(id) };
  }

  test('all four checkpoints come in order, each answer is recorded and visibly shapes the report', async () => {
    h = await startResearchHarness();
    const { deepresearch_id: id } = await h.client.createTask({ query: QUERY, mode: 'fast', hitl: ALL_CHECKPOINTS });
    expect((await h.client.getTask(id)).hitl_config).toEqual(ALL_CHECKPOINTS);

    await h.advance(5_000);
    let task = await h.client.getTask(id);
    expect(task.status).toBe('awaiting_input');
    let interaction = interactionOf(task);
    expect(interaction).toMatchObject({ type: 'planning_questions', created_at: Date.UTC(2025, 0, 1, 0, 0, 3, 600), timeout_ms: minutes(5) });
    const questions = z.object({ questions: z.array(z.object({ question: z.string() })) }).parse(interaction.data).questions;
    expect(questions.length).toBe(3);
    expect(interaction.expected_response).toEqual({ answers: questions.map((item) => ({ question: item.question, answer: 'string' })) });
    expect(task.progress).toBeUndefined();
    const respond = await h.client.respondToCheckpoint(id, {
      interaction_id: interaction.interaction_id,
      response: { answers: [{ question: questions[0]!.question, answer: 'Only 2020 to 2025' }] },
    });
    expect(respond).toMatchObject({ success: true, deepresearch_id: id, status: 'running' });

    await h.advance(minutes(1));
    task = await h.client.getTask(id);
    interaction = interactionOf(task);
    expect(interaction.type).toBe('plan_review');
    expect(z.object({ plan: z.string() }).parse(interaction.data).plan).toContain('Only 2020 to 2025');
    await h.client.respondToCheckpoint(id, {
      interaction_id: interaction.interaction_id,
      response: { approved: false, modifications: 'Add a section on pumped hydro competition' },
    });

    await h.advance(minutes(1));
    task = await h.client.getTask(id);
    interaction = interactionOf(task);
    expect(interaction.type).toBe('source_review');
    const offered = z.object({ sources: z.array(z.object({ domain: z.string(), url: z.string() })) }).parse(interaction.data).sources;
    expect(offered.length).toBe(8);
    const excluded = offered[0]!.domain;
    await h.client.respondToCheckpoint(id, {
      interaction_id: interaction.interaction_id,
      response: { included_domains: ['iea.org'], excluded_domains: [excluded] },
    });

    await h.advance(minutes(1));
    task = await h.client.getTask(id);
    interaction = interactionOf(task);
    expect(interaction.type).toBe('outline_review');
    expect(JSON.stringify(interaction.data)).toContain('Executive summary');
    await h.client.respondToCheckpoint(id, {
      interaction_id: interaction.interaction_id,
      response: { approved: false, modifications: 'Put the policy outlook first' },
    });

    await h.advance(minutes(3));
    task = await h.client.getTask(id);
    expect(task.status).toBe('completed');
    expect(task.interaction).toBeUndefined();
    expect(task.hitl_history?.map((entry) => asRecord(entry).type)).toEqual(['planning_questions', 'plan_review', 'source_review', 'outline_review']);
    const report = String(task.output);
    expect(report).toContain('Only 2020 to 2025');
    expect(report).toContain('Plan change requested at review: Add a section on pumped hydro competition');
    expect(report).toContain('The outline was revised at review: Put the policy outlook first');
    expect(report).toContain(`Excluded at source review: ${excluded}`);
    expect(task.sources?.some((source) => String(source.url).includes(excluded))).toBe(false);
    expect(task.sources?.some((source) => String(source.url).startsWith('https://iea.org/'))).toBe(true);
  });

  test('approving a review resumes the task unchanged', async () => {
    h = await startResearchHarness();
    const { id, task } = await awaitingTask({ outline_review: true });
    const interaction = interactionOf(task);
    expect(interaction.type).toBe('outline_review');
    await h.client.respondToCheckpoint(id, { interaction_id: interaction.interaction_id, response: { approved: true } });
    await h.advance(minutes(1));
    const done = await h.client.getTask(id);
    expect(done.status).toBe('completed');
    expect(String(done.output)).not.toContain('revised at review');
    expect(done.hitl_history).toEqual([expect.objectContaining({ type: 'outline_review', response: { approved: true }, auto_continued: false })]);
  });

  test.each([
    ['planning_questions', { approved: true }, 'response.answers'],
    ['planning_questions', { answers: [] }, 'response.answers: needs at least one answer'],
    ['plan_review', { approved: false }, 'answers to plan_review checkpoints must look like'],
    ['plan_review', { approved: false, modifications: '  ' }, 'must say what to change'],
    ['source_review', { included_domains: ['a.com'] }, 'response.excluded_domains'],
    ['outline_review', { answers: [{ question: 'q', answer: 'a' }] }, 'answers to outline_review checkpoints must look like {"approved":true}'],
  ] as const)('the %s checkpoint refuses the wrong answer %j with 400 and stays open', async (type, response, expected) => {
    h = await startResearchHarness();
    const { deepresearch_id: id } = await h.client.createTask({ query: QUERY, mode: 'fast', hitl: { [type]: true } });
    await h.advance(minutes(2.5));
    const interaction = interactionOf(await h.client.getTask(id));
    expect(interaction.type).toBe(type);
    const refused = await h.call('POST', `/deepresearch/tasks/${id}/respond`, { interaction_id: interaction.interaction_id, response });
    expect(refused.status).toBe(400);
    expect(textField(refused.json, 'error')).toContain(expected);
    expect((await h.client.getTask(id)).status).toBe('awaiting_input');
  });

  test('an answer for another interaction id is refused with 409 naming the current one', async () => {
    h = await startResearchHarness();
    const { id, task } = await awaitingTask({ plan_review: true });
    const current = interactionOf(task).interaction_id;
    const error = await apiError(h.client.respondToCheckpoint(id, { interaction_id: 'int_stale', response: { approved: true } }));
    expect(error.status).toBe(409);
    expect(error.serviceMessage).toBe(`interaction_id int_stale is not the task's current checkpoint (current: ${current}, plan_review)`);
  });

  test('an answer to a task that is not at a checkpoint is refused with 409', async () => {
    h = await startResearchHarness();
    const { deepresearch_id: id } = await h.client.createTask({ query: QUERY, mode: 'fast' });
    const error = await apiError(h.client.respondToCheckpoint(id, { interaction_id: 'int_x', response: { approved: true } }));
    expect(error.status).toBe(409);
    expect(error.serviceMessage).toBe('Task is running; checkpoint answers are accepted only while it is awaiting_input or paused');
  });

  test('an unanswered checkpoint pauses after the timeout; a later answer resumes the task to completion', async () => {
    h = await startResearchHarness({ checkpointTimeoutMs: minutes(5) });
    const { deepresearch_id: id } = await h.client.createTask({ query: QUERY, mode: 'fast', hitl: { source_review: true } });
    await h.advance(minutes(1.3));
    const waiting = await h.client.getTask(id);
    expect(waiting.status).toBe('awaiting_input');
    await h.advance(minutes(4.9));
    const paused = await h.client.getTask(id);
    expect(paused.status).toBe('paused');
    expect(interactionOf(paused).interaction_id).toBe(interactionOf(waiting).interaction_id);
    await h.advance(minutes(60));
    expect((await h.client.getTask(id)).status).toBe('paused');
    const cancel = await apiError(h.client.cancelTask(id));
    expect(cancel.status).toBe(409);

    const answered = await h.client.respondToCheckpoint(id, {
      interaction_id: interactionOf(paused).interaction_id,
      response: { included_domains: [], excluded_domains: ['wikipedia.org'] },
    });
    expect(answered.status).toBe('running');
    await h.advance(minutes(2));
    const done = await h.client.getTask(id);
    expect(done.status).toBe('completed');
    // Answered after the pause: not continued on its own, and answered later than the timeout.
    expect(done.hitl_history).toEqual([expect.objectContaining({ type: 'source_review', auto_continued: false })]);
    const [entry] = done.hitl_history ?? [];
    expect((entry?.responded_at ?? 0) - (entry?.created_at ?? 0)).toBeGreaterThan(5 * 60_000);
    expect(done.sources?.some((source) => String(source.url).includes('wikipedia.org'))).toBe(false);
  });

  test('a task at a checkpoint frees its slot, and after the answer it is queued until one frees up', async () => {
    h = await startResearchHarness({ capacity: 1 });
    const { deepresearch_id: first } = await h.client.createTask({ query: QUERY, mode: 'fast', hitl: { plan_review: true } });
    const second = await h.client.createTask({ query: 'Second question', mode: 'fast' });
    expect(second.status).toBe('queued');
    await h.advance(minutes(0.5));
    const waiting = await h.client.getTask(first);
    expect(waiting.status).toBe('awaiting_input');
    expect((await h.client.getTask(second.deepresearch_id)).status).toBe('running');
    const answered = await h.client.respondToCheckpoint(first, { interaction_id: interactionOf(waiting).interaction_id, response: { approved: true } });
    expect(answered.status).toBe('queued');
    expect((await h.client.getTask(first)).status).toBe('queued');
    await h.advance(minutes(3));
    expect((await h.client.getTask(second.deepresearch_id)).status).toBe('completed');
    expect((await h.client.getTask(first)).status).toBe('running');
  });
});
