import {
  ApplicationFailure, CancellationScope, condition, isCancellation, proxyActivities, setCurrentDetails, setHandler,
  allHandlersFinished, upsertSearchAttributes, workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { CreatedResearchTask, StoredOutputs } from '../activities/types';
import type { CheckpointType, ResearchMode } from '../api/schemas';
import { createCall, download, shortCall } from './activity-options';
import {
  addInstructionUpdate, checkpointResponseSignal, researchTaskStateQuery, respondToCheckpointUpdate, resumeSignal,
  resolveCreateSignal, webhookReceivedSignal,
} from './definitions';
import { FailureType } from './failures';
import { failureMessage } from './failure-info';
import { contextMetadata, storageKey } from './ids';
import { nextPollDelayMs } from './polling';
import { createTaskDurably } from './create-task';
import { DeepResearchIdKey, ResearchCostUsdKey, ResearchModeKey, ResearchPipelineKey, ResearchStatusKey } from './search-attributes';
import { ResearchTaskModel } from './task-state';
import type { CheckpointAnswer, CreateDecision, ResearchTaskInput, ResearchTaskResult } from './types';

type Activities = ReturnType<typeof createActivities>;
const calls = proxyActivities<Activities>(shortCall);
const creates = proxyActivities<Activities>(createCall);
const downloads = proxyActivities<Activities>(download);

/**
 * One DeepResearch task as a durable workflow: create it (never twice), follow it by polling and
 * webhooks, let people answer its checkpoints and send instructions, store its outputs, and return
 * references. Cancelling the workflow cancels the task and returns its partial output.
 */
export async function researchTaskWorkflow(input: ResearchTaskInput): Promise<ResearchTaskResult> {
  const startedAt = Date.now();
  const mode: ResearchMode = input.request.mode ?? input.request.model ?? 'standard';
  const hitl = input.request.hitl ?? {};
  const enabled = (['planning_questions', 'plan_review', 'source_review', 'outline_review'] as const).filter((type: CheckpointType) => hitl[type] === true);
  const model = new ResearchTaskModel(mode, enabled);
  let wake = false;
  let resumeRequested = false;
  let decision: CreateDecision | undefined;
  let webhookConfigured: boolean;
  let lastStatus: string | undefined;
  let lastCost: number | undefined;

  const publish = (): void => {
    if (model.status !== lastStatus || model.cost !== lastCost) {
      upsertSearchAttributes([
        { key: ResearchStatusKey, value: model.status },
        ...(model.cost !== undefined ? [{ key: ResearchCostUsdKey, value: model.cost }] : []),
        ...(model.deepresearchId ? [{ key: DeepResearchIdKey, value: model.deepresearchId }] : []),
      ]);
      lastStatus = model.status;
      lastCost = model.cost;
    }
    setCurrentDetails(model.details());
  };

  // Marked answered first so a second answer cannot race this one; unmarked if the service refuses it.
  const forwardAnswer = async (answer: CheckpointAnswer): Promise<void> => {
    model.markAnswered(answer.interactionId);
    try {
      await calls.answerResearchCheckpoint({ deepresearchId: model.deepresearchId!, interactionId: answer.interactionId, response: answer.response });
    } catch (error) {
      model.unmarkAnswered(answer.interactionId);
      wake = true;
      throw ApplicationFailure.create({ type: FailureType.Refused, message: `the service refused the answer: ${failureMessage(error)}`, nonRetryable: true });
    }
    wake = true;
    publish();
  };

  setHandler(researchTaskStateQuery, () => model.toState());
  setHandler(webhookReceivedSignal, (notice) => {
    model.webhooks++;
    if (notice.deepresearchId && model.deepresearchId === undefined && decision === undefined) decision = { adoptTaskId: notice.deepresearchId };
    wake = true;
  });
  setHandler(resumeSignal, () => {
    resumeRequested = true;
  });
  setHandler(resolveCreateSignal, (value) => {
    decision = value;
  });
  setHandler(checkpointResponseSignal, async (answer) => {
    const problem = model.answerProblem(answer);
    const interactionId = String((answer as Partial<CheckpointAnswer> | undefined)?.interactionId ?? '');
    if (problem) {
      model.reject(interactionId, problem, Date.now());
      return;
    }
    // A signal's sender cannot be told; a refusal is recorded, and the workflow waits for another answer.
    await forwardAnswer(answer).catch((error: unknown) => model.reject(interactionId, failureMessage(error), Date.now()));
  });
  setHandler(respondToCheckpointUpdate, async (answer) => {
    await forwardAnswer(answer);
    return { accepted: true as const, interactionId: answer.interactionId };
  }, {
    validator: (answer) => {
      const problem = model.answerProblem(answer);
      if (problem) throw new Error(problem);
    },
  });
  setHandler(addInstructionUpdate, async (instruction) => {
    try {
      await calls.addResearchInstruction({ deepresearchId: model.deepresearchId!, instruction });
      model.instructions.push({ instruction, accepted: true });
      return { accepted: true as const };
    } catch (error) {
      const reason = failureMessage(error);
      model.instructions.push({ instruction, accepted: false, reason });
      throw ApplicationFailure.create({ type: FailureType.Refused, message: `instruction refused: ${reason}`, nonRetryable: true });
    }
  }, {
    validator: (instruction) => {
      const problem = model.instructionProblem(instruction);
      if (problem) throw new Error(problem);
    },
  });

  upsertSearchAttributes([
    { key: ResearchModeKey, value: mode },
    ...(input.context?.pipeline ? [{ key: ResearchPipelineKey, value: input.context.pipeline }] : []),
  ]);
  publish();

  const keyPrefix = `research/${storageKey(workflowInfo().workflowId)}`;
  let created: CreatedResearchTask | undefined;
  try {
    created = await createTaskDurably({
      request: { ...input.request, metadata: { ...input.request.metadata, ...contextMetadata(input.context) } },
      requestKey: `${workflowInfo().workflowId}#${workflowInfo().firstExecutionRunId}`,
      creates,
      calls,
      model,
      publish,
      takeResume: () => (resumeRequested ? ((resumeRequested = false), true) : false),
      resumeRequested: () => resumeRequested,
      takeDecision: () => {
        const value = decision;
        decision = undefined;
        return value;
      },
      hasDecision: () => decision !== undefined,
    });
    model.deepresearchId = created.deepresearchId;
    webhookConfigured = created.webhookConfigured;
    model.status = created.status;
    model.waitingFor = 'research';
    model.detail = undefined;
    publish();

    while (!model.terminal) {
      const snapshot = await calls.getResearchTask({ deepresearchId: created.deepresearchId });
      model.polls++;
      model.apply(snapshot, Date.now());
      publish();
      if (model.terminal) break;
      wake = false;
      const delay = nextPollDelayMs({
        mode, status: snapshot.status, elapsedMs: Date.now() - startedAt, webhookConfigured,
        checkpointsAhead: model.checkpointsAhead, overrides: input.polling,
      });
      await condition(() => wake, delay);
    }
  } catch (error) {
    if (!isCancellation(error) || created === undefined && model.deepresearchId === undefined) throw error;
    return await CancellationScope.nonCancellable(async () => {
      const id = model.deepresearchId!;
      const cancelled = await calls.cancelResearchTask({ deepresearchId: id }).catch(() => undefined);
      model.status = cancelled?.status ?? 'cancelled';
      model.waitingFor = 'storing_outputs';
      publish();
      const outputs = await downloads.storeResearchOutputs({ deepresearchId: id, keyPrefix });
      return finish('cancelled', outputs);
    });
  }

  model.waitingFor = 'storing_outputs';
  publish();
  const outputs = await downloads.storeResearchOutputs({ deepresearchId: created.deepresearchId, keyPrefix });
  if (model.status === 'failed') {
    await condition(allHandlersFinished);
    throw ApplicationFailure.create({
      type: FailureType.TaskFailed,
      message: `research task ${created.deepresearchId} failed: ${model.error ?? outputs.error ?? 'no error text given'}`,
      nonRetryable: true,
      details: [{ deepresearchId: created.deepresearchId, outputs }],
    });
  }
  if (input.deleteAfterStore) await calls.deleteResearchTask({ deepresearchId: created.deepresearchId });
  return await finish(model.status === 'cancelled' ? 'cancelled' : 'completed', outputs);

  async function finish(status: 'completed' | 'cancelled', outputs: StoredOutputs): Promise<ResearchTaskResult> {
    model.status = status;
    model.cost = outputs.cost ?? model.cost;
    publish();
    await condition(allHandlersFinished);
    const finishedAt = Date.now();
    return {
      deepresearchId: model.deepresearchId!,
      status,
      mode,
      outputs,
      cost: model.cost,
      sourceCount: outputs.sourceCount,
      timings: { startedAt, finishedAt, durationMs: finishedAt - startedAt, waitingForInputMs: model.waitingForInputMs },
      polls: model.polls,
      webhooks: model.webhooks,
    };
  }
}
