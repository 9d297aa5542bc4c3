/** Signals, queries and updates of the pipeline run workflow (re-exported by definitions.ts for the CLI and intake). */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ItemAdoptedNotice, ItemWaitingNotice, PipelineControlNote } from '../domain/messages';
import type { BudgetLedger, BudgetRaise, ItemSettledReport, PipelineRunState } from '../domain/pipeline-types';
import type { BatchSettledReport } from './types';

/** Progress, money, time left and why the run waits. */
export const pipelineRunStateQuery = defineQuery<PipelineRunState>('pipelineRunState');
/** Stop starting items (those in flight go on) until `resumePipeline`. */
export const pausePipelineSignal = defineSignal<[PipelineControlNote?]>('pausePipeline');
/**
 * Start items again: after a pause, after credits ran out (402) and were topped up. Also forwarded to
 * the items in flight, whose research tasks wait for the same `resume` after a 402.
 */
export const resumePipelineSignal = defineSignal<[PipelineControlNote?]>('resumePipeline');
/** Sent by an item's research task workflow to its parent run, so the run can show who waits for whom. */
export const itemWaitingSignal = defineSignal<[ItemWaitingNotice]>('pipelineItemWaiting');
/**
 * Sent by a run to an item's research task workflow that an earlier execution of the run started (it was
 * carried across continue-as-new, or found running on resume): report the outcome to `run` when done.
 */
export const itemAdoptedSignal = defineSignal<[ItemAdoptedNotice]>('pipelineItemAdopted');
/** Sent by an adopted item's research task workflow to its run when it ends. */
export const itemSettledSignal = defineSignal<[ItemSettledReport]>('pipelineItemSettled');
/** Sent by a service batch's workflow cancelled by request, before it ends Canceled: what it collected (a Canceled workflow keeps no result). */
export const batchSettledSignal = defineSignal<[BatchSettledReport]>('pipelineBatchSettled');
/** Raise the run's budget (never lower it); answers with the ledger after the raise. */
export const raiseBudgetUpdate = defineUpdate<BudgetLedger, [BudgetRaise]>('raiseBudget');
