import type { CheckpointType, Interaction } from '../api/schemas';
import type { CheckpointAnswer } from './types';
import { isRecord } from '../shared/guards';

// The shapes mirror `checkpointResponseSchemas` in src/api/schemas/checkpoints.ts; workflow code cannot
// run zod, so they are checked by hand here and a test keeps the two in agreement.

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string' && item.length > 0);

function extraKeys(value: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  const extra = Object.keys(value).filter((key) => !allowed.includes(key));
  return extra.length > 0 ? `unexpected field ${extra.map((key) => `"${key}"`).join(', ')}` : undefined;
}

function planningQuestionsProblem(response: Record<string, unknown>): string | undefined {
  const answers = response.answers;
  if (!Array.isArray(answers) || answers.length === 0) return 'planning_questions needs answers: [{question, answer}, …] with at least one answer';
  const bad = answers.findIndex((entry) => !isRecord(entry) || typeof entry.question !== 'string' || entry.question === '' || typeof entry.answer !== 'string' || Object.keys(entry).length !== 2);
  if (bad >= 0) return `answers[${bad}] must be {question, answer} with string values`;
  return extraKeys(response, ['answers']);
}

function reviewProblem(type: CheckpointType, response: Record<string, unknown>): string | undefined {
  if (response.approved === true) return extraKeys(response, ['approved']);
  if (response.approved === false) {
    if (typeof response.modifications !== 'string' || response.modifications.trim() === '') {
      return `${type} rejected with approved: false needs modifications saying what to change`;
    }
    return extraKeys(response, ['approved', 'modifications']);
  }
  return `${type} needs {approved: true} or {approved: false, modifications}`;
}

function sourceReviewProblem(response: Record<string, unknown>): string | undefined {
  if (!isStringArray(response.included_domains) || !isStringArray(response.excluded_domains)) {
    return 'source_review needs included_domains and excluded_domains as arrays of domains';
  }
  return extraKeys(response, ['included_domains', 'excluded_domains']);
}

/** Why `answer` cannot answer `interaction` (undefined when it can): interaction id and the type's shape. */
export function checkpointAnswerProblem(interaction: Interaction | undefined, answer: unknown): string | undefined {
  if (!interaction) return 'no checkpoint is waiting for an answer';
  if (!isRecord(answer) || typeof answer.interactionId !== 'string') return 'an answer needs interactionId and response';
  if (answer.interactionId !== interaction.interaction_id) {
    return `answer is for interaction ${answer.interactionId}, but the current one is ${interaction.interaction_id}`;
  }
  if (!isRecord(answer.response)) return `response must be an object for a ${interaction.type} checkpoint`;
  switch (interaction.type) {
    case 'planning_questions':
      return planningQuestionsProblem(answer.response);
    case 'plan_review':
    case 'outline_review':
      return reviewProblem(interaction.type, answer.response);
    case 'source_review':
      return sourceReviewProblem(answer.response);
  }
}

/** Narrows a checked answer. */
export function isCheckpointAnswer(interaction: Interaction | undefined, answer: unknown): answer is CheckpointAnswer {
  return checkpointAnswerProblem(interaction, answer) === undefined;
}
