import type { BatchRoundSource } from '../activities/pipeline-batch-rounds';
import { availableUsd } from '../domain/budget';
import type { BudgetLedger } from '../domain/pipeline-types';

/** Where a `batch` step run stands between rounds: one service batch per round, one round at a time. */
export interface BatchStepState {
  /** Where the next round of input items starts. */
  input: Extract<BatchRoundSource, { from: 'input' }>;
  inputExhausted: boolean;
  /** Failed tasks waiting for another attempt (read before new input). */
  retry?: Extract<BatchRoundSource, { from: 'retry' }>;
  /** The price of the task the budget stopped at, until a round takes it. */
  blockedUsd?: number;
  /** Rounds started so far (names the next round's files and batch workflow). */
  rounds: number;
}

/** What the run does next with a `batch` step. */
export type BatchRoundDecision = { kind: 'take'; take: BatchRoundSource } | { kind: 'wait'; reason: 'paused' | 'budget_blocked' } | { kind: 'done' };

/** The state of a run whose `batch` step has not started. */
export function initialBatchStepState(): BatchStepState {
  return { input: { from: 'input', skip: 0 }, inputExhausted: false, rounds: 0 };
}

/**
 * The next round: nothing once the run stops (cancelled or failing); a pause holds it; a budget that
 * stopped the last round holds it until a raise makes room for the next task; retries come before new
 * input; done when both are used up.
 */
export function nextBatchRound(state: BatchStepState, run: { paused: boolean; stopping: boolean; ledger: BudgetLedger }): BatchRoundDecision {
  if (run.stopping) return { kind: 'done' };
  const take: BatchRoundSource | undefined = state.retry ?? (state.inputExhausted ? undefined : state.input);
  if (!take) return { kind: 'done' };
  if (run.paused) return { kind: 'wait', reason: 'paused' };
  if (state.blockedUsd !== undefined && availableUsd(run.ledger) < state.blockedUsd) return { kind: 'wait', reason: 'budget_blocked' };
  return { kind: 'take', take };
}

/** The state after a round was prepared from `take`: where its source goes on, and whether the budget stopped it. */
export function afterPrepared(
  state: BatchStepState,
  take: BatchRoundSource,
  prepared: { next: BatchRoundSource; exhausted: boolean; blockedUsd?: number; tasks: number },
): BatchStepState {
  const next: BatchStepState = { ...state, rounds: state.rounds + (prepared.tasks > 0 ? 1 : 0) };
  if (take.from === 'retry') {
    if (prepared.exhausted) delete next.retry;
    else next.retry = prepared.next as Extract<BatchRoundSource, { from: 'retry' }>;
  } else {
    next.input = prepared.next as Extract<BatchRoundSource, { from: 'input' }>;
    next.inputExhausted = prepared.exhausted;
  }
  if (prepared.blockedUsd !== undefined) next.blockedUsd = prepared.blockedUsd;
  else delete next.blockedUsd;
  return next;
}

/** Tasks of a pending retry list never run (the run stopped first): they stay failed, as recorded. */
export function unrunRetries(state: BatchStepState): number {
  return state.retry ? state.retry.count - state.retry.skip : 0;
}
