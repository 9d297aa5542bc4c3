import type { Interaction } from '../api/schemas';
import { messageSchemas } from './message-schemas';
import type { CheckpointAnswer } from './types';

// The response is checked with the service's own schema for the checkpoint's type, so the workflow
// refuses exactly what the service would, before anything is sent.

/** Why `answer` cannot answer `interaction` (undefined when it can): interaction id and the type's shape. */
export function checkpointAnswerProblem(interaction: Interaction | undefined, answer: unknown): string | undefined {
  if (!interaction) return 'no checkpoint is waiting for an answer';
  const { checkMessage, CHECKPOINT_RESPONSE_SHAPES, checkpointAnswer, checkpointResponseFor } = messageSchemas();
  const envelope = checkMessage(checkpointAnswer, answer);
  if ('problem' in envelope) return envelope.problem;
  const { interactionId, response } = envelope.value;
  if (interactionId !== interaction.interaction_id) {
    return `answer is for interaction ${interactionId}, but the current one is ${interaction.interaction_id}`;
  }
  const checked = checkMessage(checkpointResponseFor(interaction.type), response, { at: ['response'] });
  if ('problem' in checked) return `${checked.problem} (a ${interaction.type} checkpoint takes ${CHECKPOINT_RESPONSE_SHAPES[interaction.type]})`;
  return undefined;
}

/** Narrows a checked answer. */
export function isCheckpointAnswer(interaction: Interaction | undefined, answer: unknown): answer is CheckpointAnswer {
  return checkpointAnswerProblem(interaction, answer) === undefined;
}
