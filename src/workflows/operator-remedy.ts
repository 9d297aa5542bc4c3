import { condition } from '@temporalio/workflow';
import { failureType } from './failure-info';
import { FailureType } from '../domain/failures';
import type { WaitReason } from './types';

/** Why a workflow waits for an operator, and what the operator should do. */
export interface OperatorRemedy {
  waitingFor: Extract<WaitReason, 'credits_exhausted' | 'operator'>;
  detail: string;
}

/**
 * For a failure an operator can fix (credits, the API key, its permissions), what to do before the
 * `resume` signal; undefined for any other failure. Waiting instead of failing keeps a paid task tracked.
 */
export function operatorRemedy(error: unknown): OperatorRemedy | undefined {
  switch (failureType(error)) {
    case FailureType.CreditsExhausted:
      return { waitingFor: 'credits_exhausted', detail: 'credits exhausted (402): top up the account, then send the resume signal' };
    case FailureType.Unauthorized:
      return {
        waitingFor: 'operator',
        detail: 'the service rejected the API key (401): fix RESEARCH_API_KEY and restart the worker, then send the resume signal',
      };
    case FailureType.Forbidden:
      return { waitingFor: 'operator', detail: 'the API key lacks a permission (403, e.g. inference): grant it, then send the resume signal' };
    default:
      return undefined;
  }
}

/** How a workflow shows that it waits for an operator, and learns that the operator sent `resume`. */
export interface OperatorGate {
  /** Shows the remedy while waiting; undefined once resumed. */
  show(remedy: OperatorRemedy | undefined): void;
  resumed(): boolean;
  /** Consumes the `resume`. */
  consume(): void;
}

/** Runs `call`; after a failure an operator can fix, shows what to do, waits for `resume` and runs it again. */
export async function untilOperatorFixes<T>(call: () => Promise<T>, gate: OperatorGate): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (error) {
      const remedy = operatorRemedy(error);
      if (!remedy) throw error;
      gate.show(remedy);
      await condition(gate.resumed);
      gate.consume();
      gate.show(undefined);
    }
  }
}

/**
 * What an operator can do about a checkpoint left open at the service by a workflow that has ended (its
 * cancel was refused): the workflow takes no answer any more, so respondToCheckpoint is not offered.
 */
export function closedCheckpointRemedy(type: string, interactionId: string): string {
  return `the checkpoint ${type} (interaction ${interactionId}) stays open at the service; this workflow has ended and takes no answer: start its pipeline run again with the same run key to follow the task, or answer it at the service`;
}
