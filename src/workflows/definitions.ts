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

/** A checkpoint answer with a synchronous accept or reject. */
export const respondToCheckpointUpdate = defineUpdate<{ accepted: true; interactionId: string }, [CheckpointAnswer]>('respondToCheckpoint');
/** A follow-up instruction for the research agent; rejected once the task is past the point of taking one. */
export const addInstructionUpdate = defineUpdate<{ accepted: true }, [string]>('addInstruction');

/** Status, progress, checkpoint, cost and why the workflow waits. */
export const researchTaskStateQuery = defineQuery<ResearchTaskState>('researchTaskState');
/** Batch phase, counts and collection progress. */
export const researchBatchStateQuery = defineQuery<ResearchBatchState>('researchBatchState');

export { pausePipelineSignal, pipelineRunStateQuery, raiseBudgetUpdate, resumePipelineSignal } from './pipeline-definitions';
