/** Signals, queries and updates of the research workflows: one module the CLI, intake and tests import. */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { CheckpointAnswer, CreateDecision, ResearchBatchState, ResearchTaskState, WebhookNotice } from './types';

/** The intake verified a webhook for this workflow: fetch the authoritative status now. */
export const webhookReceivedSignal = defineSignal<[WebhookNotice]>('webhookReceived');
/** An answer to the current checkpoint (the contract operators use from the Temporal UI). */
export const checkpointResponseSignal = defineSignal<[CheckpointAnswer]>('checkpointResponse');
/** An operator topped up credits: try the refused call again. */
export const resumeSignal = defineSignal('resume');
/** An operator's decision on a create whose outcome is unknown. */
export const resolveCreateSignal = defineSignal<[CreateDecision]>('resolveCreate');

/** An operator's decision on a create whose outcome is unknown, answered at once (refused when none is waited for). */
export const resolveCreateOutcomeUpdate = defineUpdate<{ accepted: true; decision: 'adopt' | 'create_again' }, [CreateDecision]>('resolveCreateOutcome');

/** A checkpoint answer with a synchronous accept or reject. */
export const respondToCheckpointUpdate = defineUpdate<{ accepted: true; interactionId: string }, [CheckpointAnswer]>('respondToCheckpoint');
/** A follow-up instruction for the research agent; rejected once the task is past the point of taking one. */
export const addInstructionUpdate = defineUpdate<{ accepted: true }, [string]>('addInstruction');

/** Status, progress, checkpoint, cost and why the workflow waits. */
export const researchTaskStateQuery = defineQuery<ResearchTaskState>('researchTaskState');
/** Batch phase, counts and collection progress. */
export const researchBatchStateQuery = defineQuery<ResearchBatchState>('researchBatchState');

export { pausePipelineSignal, pipelineRunStateQuery, raiseBudgetUpdate, resumePipelineSignal } from './pipeline-definitions';

/**
 * What each signal, query and update does and how to use it, by name: the Temporal UI and CLI show it
 * next to the handler (`temporal workflow metadata`), so an operator need not read the code.
 */
export const HANDLER_DESCRIPTIONS: Readonly<Record<string, string>> = {
  webhookReceived:
    'For the intake, not operators: sent after the intake verified a service webhook, so the workflow fetches the authoritative status now (an operator gains nothing by sending it). Payload {deepresearchId?, batchId?, status?}.',
  checkpointResponse:
    'Answer the checkpoint the task waits at: {interactionId, response}. Prefer the respondToCheckpoint update, which says at once whether the answer was accepted.',
  resume: 'After credits were topped up (402) or a key or permission fixed (401, 403): try the refused call again.',
  resolveCreate:
    'Settle a create whose outcome is unknown: {adoptTaskId: "<task id>"} to adopt a task found at the service, or {createAgain: true} after checking none exists.',
  resolveCreateOutcome:
    'Settle a create whose outcome is unknown (the current details show what the look-up found): {adoptTaskId: "<task id>"} to adopt a task found at the service, or {createAgain: true} after checking none exists. Refused unless the workflow waits for that decision.',
  respondToCheckpoint:
    'Answer the checkpoint the task waits at: {interactionId, response}; refused with the reason when the interaction is not the current one or the response has the wrong shape.',
  addInstruction: 'Send a follow-up instruction (text) to the research agent while the task runs; refused once the task is past taking one.',
  researchTaskState: 'Status, progress, the checkpoint waiting for an answer, cost, why the workflow waits, and refused messages.',
  researchBatchState: 'Batch phase, tasks added, counts at the service, tasks collected, and why it waits.',
  pipelineRunState: 'Progress of the run: counts, items running and waiting (checkpoint or operator), budget ledger, time left, failures, outputs.',
  pausePipeline: 'Stop starting items (or the next service batch) until resumePipeline; items in flight go on. Payload {reason?}.',
  resumePipeline: 'Start items again after a pause or a 402 top-up; forwarded to the items (or the service batch) in flight. Payload {reason?}.',
  pipelineItemWaiting:
    'Sent by an item\'s research task to its run when it starts or stops waiting for a person: {item, waiting: "checkpoint" | "operator" | null}.',
  pipelineItemAdopted:
    'Internal: sent by a pipeline run to an item workflow an earlier execution of the run started, so the item reports its outcome to the run. Payload {run}.',
  pipelineItemSettled: 'Internal: sent by an adopted item workflow to its run when it ends. Payload {item, workflowId, status, result?, error?}.',
  pipelineBatchSettled:
    'Internal: sent by a service batch workflow cancelled by request to its run, with what it collected, before it ends Canceled. Payload {workflowId, result}.',
  raiseBudget: "Raise the run's budget: {budgetUsd: <new total>} or {addUsd: <amount>}; a budget is never lowered. Answers with the ledger.",
};

/** The description of a signal, query or update definition, for `setHandler`'s options. */
export function described(definition: { name: string }): { description: string } {
  return { description: HANDLER_DESCRIPTIONS[definition.name] ?? definition.name };
}
