import type { z } from 'zod';
import { checkpointResponseSchemas, type CheckpointType } from '../../api/schemas/checkpoints';
import type { CheckpointResponse, Interaction } from '../../api/schemas/checkpoints';
import type { HitlHistoryEntry } from '../../api/schemas/tasks';
import type { TaskRecord } from './task-record';
import { candidateSources } from './content/sources';
import { topicOf } from './content/topic';
import { reportOutline, researchPlan } from './content/plan';

/** The questions asked at `planning_questions` for a task. */
export function planningQuestions(task: TaskRecord): string[] {
  const [first = 'the topic', second = first] = topicOf(task.query).keywords;
  return [
    `Which time period should the research on ${first} cover?`,
    `Which regions, markets or segments matter most for ${second}?`,
    'Who will read the report (executives, analysts, engineers), and how deep should it go?',
  ];
}

function dataFor(task: TaskRecord, type: CheckpointType): Record<string, unknown> {
  switch (type) {
    case 'planning_questions':
      return {
        context: 'A few answers will focus the research plan.',
        questions: planningQuestions(task).map((question, index) => ({ id: `q${index + 1}`, question })),
      };
    case 'plan_review': {
      const steps = researchPlan(task);
      return { plan: steps.map((step, index) => `${index + 1}. ${step}`).join('\n'), steps };
    }
    case 'source_review': {
      const sources = candidateSources(task).map(({ title, url, domain, snippet }) => ({ title, url, domain, snippet }));
      return { sources, domains: [...new Set(sources.map((source) => source.domain))] };
    }
    case 'outline_review':
      return { title: topicOf(task.query).title, outline: reportOutline(task) };
  }
}

function expectedResponseFor(task: TaskRecord, type: CheckpointType): Record<string, unknown> {
  switch (type) {
    case 'planning_questions':
      return { answers: planningQuestions(task).map((question) => ({ question, answer: 'string' })) };
    case 'plan_review':
    case 'outline_review':
      return { approved: 'boolean', modifications: 'string; required when approved is false' };
    case 'source_review':
      return { included_domains: ['string'], excluded_domains: ['string'] };
  }
}

/** The `interaction` object of a task at a checkpoint, or undefined when it is not at one. */
export function interactionView(task: TaskRecord, timeoutMs: number): Interaction | undefined {
  const current = task.interaction;
  if (!current) return undefined;
  return {
    interaction_id: current.id,
    type: current.type,
    data: dataFor(task, current.type),
    // Whole milliseconds: valyu-py reads these times as integers (a scaled clock has fractions).
    created_at: Math.floor(current.createdAt),
    timeout_ms: timeoutMs,
    expected_response: expectedResponseFor(task, current.type),
  };
}

/** The `hitl_history` entries of a task. */
export function hitlHistoryView(task: TaskRecord): HitlHistoryEntry[] {
  // Every emulated checkpoint waits for its answer (a timeout pauses it), so none continued on its own.
  return task.history.map((entry) => ({
    interaction_id: entry.interactionId,
    type: entry.type,
    created_at: Math.floor(entry.createdAt),
    responded_at: Math.floor(entry.respondedAt),
    auto_continued: false,
    response: { ...entry.response },
  }));
}

/** Checks a response against the schema of the checkpoint type it answers. */
export function parseCheckpointResponse(type: CheckpointType, response: unknown): { ok: true; value: CheckpointResponse } | { ok: false; error: z.ZodError } {
  const result = checkpointResponseSchemas[type].safeParse(response);
  return result.success ? { ok: true, value: result.data } : { ok: false, error: result.error };
}

const ANSWER_SHAPES: Record<CheckpointType, string> = {
  planning_questions: '{"answers":[{"question":"...","answer":"..."}]}',
  plan_review: '{"approved":true} or {"approved":false,"modifications":"..."}',
  source_review: '{"included_domains":["..."],"excluded_domains":["..."]}',
  outline_review: '{"approved":true} or {"approved":false,"modifications":"..."}',
};

/** The 400 text for an answer of the wrong shape for its checkpoint, naming the shape it needs. */
export function wrongAnswerText(type: CheckpointType, issues: string): string {
  return `Invalid request parameters: ${issues} (answers to ${type} checkpoints must look like ${ANSWER_SHAPES[type]})`;
}
