import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import { handlerCalls } from './activity-proxies';
import {
  addInstructionUpdate,
  checkpointResponseSignal,
  researchTaskStateQuery,
  respondToCheckpointUpdate,
  resumeSignal,
  resolveCreateOutcomeUpdate,
  resolveCreateSignal,
  webhookReceivedSignal,
  described,
} from './definitions';
import { failureMessage } from './failure-info';
import { FailureType } from '../domain/failures';
import { parseCreateDecision, parseWebhookNotice } from './message-checks';
import type { ResearchTaskModel } from './task-state';
import type { CheckpointAnswer, CreateDecision } from './types';

/** Statuses after which a task no longer changes (a webhook saying one announces the end). */
const ENDED: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** What the message handlers leave for the workflow's main loop. */
export class TaskInbox {
  /** Fetch the status now (a webhook came, or an answer was forwarded). */
  wake = false;
  /** A webhook said the task has ended: the next look may read it and store its outputs in one go. */
  endAnnounced = false;
  resumeRequested = false;
  decision?: CreateDecision;

  /** Consumes a pending `resume`. */
  takeResume(): boolean {
    const value = this.resumeRequested;
    this.resumeRequested = false;
    return value;
  }

  /** Consumes a pending create decision. */
  takeDecision(): CreateDecision | undefined {
    const value = this.decision;
    this.decision = undefined;
    return value;
  }
}

/** What the handlers act on. */
export interface TaskHandlerContext {
  model: ResearchTaskModel;
  inbox: TaskInbox;
  publish(): void;
}

/** Registers the research task's query, signals and updates (validators check before anything is sent). */
export function handleTaskMessages({ model, inbox, publish }: TaskHandlerContext): void {
  // Marked answered first so a second answer cannot race this one; unmarked if the service refuses it.
  const forwardAnswer = async (answer: CheckpointAnswer): Promise<void> => {
    model.markAnswered(answer.interactionId);
    try {
      await handlerCalls.answerResearchCheckpoint({ deepresearchId: model.deepresearchId!, interactionId: answer.interactionId, response: answer.response });
    } catch (error) {
      model.unmarkAnswered(answer.interactionId);
      throw ApplicationFailure.create({ type: FailureType.Refused, message: `the service refused the answer: ${failureMessage(error)}`, nonRetryable: true });
    } finally {
      inbox.wake = true;
      publish();
    }
  };

  setHandler(researchTaskStateQuery, () => model.toState(Date.now()), described(researchTaskStateQuery));
  setHandler(
    webhookReceivedSignal,
    (payload) => {
      const parsed = parseWebhookNotice(payload);
      if ('problem' in parsed) {
        model.rejectSignal('webhookReceived', parsed.problem, Date.now());
        publish();
        return;
      }
      const { notice } = parsed;
      model.webhooks++;
      // A webhook naming a task while the create's outcome is unknown settles it.
      if (notice.deepresearchId && model.deepresearchId === undefined && inbox.decision === undefined) inbox.decision = { adoptTaskId: notice.deepresearchId };
      if (notice.deepresearchId !== undefined && notice.deepresearchId === model.deepresearchId && ENDED.has(notice.status ?? '')) inbox.endAnnounced = true;
      inbox.wake = true;
    },
    described(webhookReceivedSignal),
  );
  setHandler(resumeSignal, () => void (inbox.resumeRequested = true), described(resumeSignal));
  setHandler(
    resolveCreateSignal,
    (value) => {
      const parsed = parseCreateDecision(value);
      if ('problem' in parsed) {
        model.rejectSignal('resolveCreate', parsed.problem, Date.now());
        publish();
        return;
      }
      inbox.decision = parsed.decision;
    },
    described(resolveCreateSignal),
  );
  setHandler(
    resolveCreateOutcomeUpdate,
    (value) => {
      const parsed = parseCreateDecision(value);
      if ('problem' in parsed) throw new Error(parsed.problem);
      inbox.decision = parsed.decision;
      return { accepted: true as const, decision: 'adoptTaskId' in parsed.decision ? ('adopt' as const) : ('create_again' as const) };
    },
    {
      ...described(resolveCreateOutcomeUpdate),
      validator: (value) => {
        if (model.waitingFor !== 'reconciling_create') throw new Error(`no create outcome is waiting for a decision (the workflow is ${model.waitingFor})`);
        const parsed = parseCreateDecision(value);
        if ('problem' in parsed) throw new Error(parsed.problem);
      },
    },
  );
  setHandler(
    checkpointResponseSignal,
    async (answer) => {
      const interactionId = String((answer as Partial<CheckpointAnswer> | undefined)?.interactionId ?? '');
      const problem = model.answerProblem(answer);
      if (problem) {
        model.reject(interactionId, problem, Date.now());
        return;
      }
      // A signal's sender cannot be told; a refusal is recorded, and the workflow waits for another answer.
      await forwardAnswer(answer).catch((error: unknown) => model.reject(interactionId, failureMessage(error), Date.now()));
    },
    described(checkpointResponseSignal),
  );
  setHandler(
    respondToCheckpointUpdate,
    async (answer) => {
      await forwardAnswer(answer);
      return { accepted: true as const, interactionId: answer.interactionId };
    },
    {
      ...described(respondToCheckpointUpdate),
      validator: (answer) => {
        const problem = model.answerProblem(answer);
        if (problem) throw new Error(problem);
      },
    },
  );
  setHandler(
    addInstructionUpdate,
    async (instruction) => {
      try {
        await handlerCalls.addResearchInstruction({ deepresearchId: model.deepresearchId!, instruction });
        model.instructions.push({ instruction, accepted: true });
        return { accepted: true as const };
      } catch (error) {
        const reason = failureMessage(error);
        model.instructions.push({ instruction, accepted: false, reason });
        throw ApplicationFailure.create({ type: FailureType.Refused, message: `instruction refused: ${reason}`, nonRetryable: true });
      }
    },
    {
      ...described(addInstructionUpdate),
      validator: (instruction) => {
        const problem = model.instructionProblem(instruction);
        if (problem) throw new Error(problem);
      },
    },
  );
}
