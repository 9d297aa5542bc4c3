import { ResearchApiError, TERMINAL_TASK_STATUSES, taskStatus, type Task } from '../api';
import type { ActivityDeps } from './deps';
import { callOptions } from './context';
import { STATE_REFUSAL_STATUSES, callService, refused, rethrowAsFailure } from './errors';
import type { AddInstructionInput, AnswerCheckpointInput, CancelResult, CheckpointAnswered, DeleteResult, InstructionAccepted, TaskIdInput } from './types';

const refusals = { refusedStatuses: STATE_REFUSAL_STATUSES };
// A checkpoint answer of the wrong shape for its type comes back as 400: that is the answer's fault
// (InvalidRequest, for the operator to fix), not the task's state.
const checkpointRefusals = { refusedStatuses: STATE_REFUSAL_STATUSES.filter((status) => status !== 400) };

/** Activities that act on a running task: follow-up instructions, checkpoint answers, cancel, delete. */
export function taskActionActivities(deps: ActivityDeps) {
  const { api, secrets } = deps;

  /** Sends a follow-up instruction; a refusal (e.g. the writing phase began) is a non-retryable `Refused`. */
  async function addResearchInstruction({ deepresearchId, instruction }: AddInstructionInput): Promise<InstructionAccepted> {
    const answer = await callService(() => api.updateTask(deepresearchId, instruction, callOptions()), refusals);
    if (!answer.success) throw refused(`task ${deepresearchId} did not take the instruction: ${answer.message}`, { deepresearchId });
    return { accepted: true, message: answer.message };
  }

  /** Answers the task's current checkpoint; a stale interaction or a task not waiting is `Refused`. */
  async function answerResearchCheckpoint({ deepresearchId, interactionId, response }: AnswerCheckpointInput): Promise<CheckpointAnswered> {
    const answer = await callService(
      () => api.respondToCheckpoint(deepresearchId, { interaction_id: interactionId, response }, callOptions()),
      checkpointRefusals,
    );
    if (!answer.success)
      throw refused(`task ${deepresearchId} did not take the checkpoint answer: ${answer.message ?? 'no reason given'}`, { deepresearchId, interactionId });
    const status = taskStatus.safeParse(answer.status);
    return { accepted: true, ...(status.success ? { status: status.data } : {}) };
  }

  /**
   * Cancels a queued or running task. A task that already ended is not an error (`cancelled: false`); one
   * waiting at a checkpoint (`awaiting_input`, `paused`) cannot be cancelled by the service, which is reported
   * as `Refused` naming the status so the workflow can decide (answer, then cancel; or leave it).
   */
  async function cancelResearchTask({ deepresearchId }: TaskIdInput): Promise<CancelResult> {
    let refusal: string | undefined;
    try {
      const answer = await api.cancelTask(deepresearchId, callOptions());
      if (answer.success) return { cancelled: true, status: 'cancelled' };
      refusal = answer.message;
    } catch (error) {
      if (!isStateRefusal(error)) rethrowAsFailure(error);
      refusal = error.serviceMessage ?? error.message;
    }
    // The service said no: its reason is free text, so the task's status decides what it meant.
    const task = await callService(() => api.getTask(deepresearchId, callOptions()));
    if (isTerminal(task)) return { cancelled: false, status: task.status };
    throw refused(`task ${deepresearchId} is ${task.status} and cannot be cancelled now: ${refusal}`, { deepresearchId, status: task.status });
  }

  /** Deletes a finished task and forgets its webhook secret; an already deleted task is `deleted: false`. */
  async function deleteResearchTask({ deepresearchId }: TaskIdInput): Promise<DeleteResult> {
    let deleted = true;
    try {
      const answer = await api.deleteTask(deepresearchId, callOptions());
      if (!answer.success) throw refused(`task ${deepresearchId} was not deleted: ${answer.message}`, { deepresearchId });
    } catch (error) {
      // A retried delete whose first attempt went through finds nothing: the goal is reached.
      if (error instanceof ResearchApiError && error.isNotFound) deleted = false;
      else rethrowAsFailure(error, refusals);
    }
    await secrets.delete(deepresearchId);
    return { deleted };
  }

  return { addResearchInstruction, answerResearchCheckpoint, cancelResearchTask, deleteResearchTask };
}

function isStateRefusal(error: unknown): error is ResearchApiError {
  return error instanceof ResearchApiError && error.kind === 'http' && STATE_REFUSAL_STATUSES.includes(error.status ?? 0);
}

function isTerminal(task: Task): boolean {
  return TERMINAL_TASK_STATUSES.includes(task.status);
}
