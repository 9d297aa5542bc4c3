import { ApplicationFailure, CancellationScope, condition, isCancellation, log, patched } from '@temporalio/workflow';
import type { CreatedResearchTask } from '../activities/types';
import type { CreateTaskRequest } from '../api/schemas';
import { createCalls, lookups, shortCalls } from './activity-proxies';
import { throwIfCancelled } from './cancellation';
import { failureMessage, failureType } from './failure-info';
import { FailureType } from '../domain/failures';
import { untilOperatorFixes, type OperatorGate } from './operator-remedy';
import { RECONCILE_DELAYS_MS } from './polling';
import type { ResearchTaskModel } from './task-state';
import type { CreateDecision } from './types';

/** What `createTaskDurably` needs from the workflow around it. */
export interface CreateTaskContext {
  request: CreateTaskRequest;
  requestKey: string;
  model: ResearchTaskModel;
  publish(): void;
  /** Where waits for an operator (402, 401, 403) show. */
  operator: OperatorGate;
  hasDecision(): boolean;
  takeDecision(): CreateDecision | undefined;
  /** Delays between looks at the task list; RECONCILE_DELAYS_MS unless set. */
  reconcileDelaysMs?: readonly number[];
  /** How long to wait for an operator's decision when the look-up cannot settle it; CREATE_DECISION_WAIT_MS unless set. */
  decisionWaitMs?: number;
}

/**
 * Creates the paid task exactly once. 402, 401 and 403 wait for an operator's `resume`; an ambiguous outcome
 * (request sent, no answer) is reconciled against the service's task list, a webhook or an operator's
 * decision before the create is ever sent again.
 */
export async function createTaskDurably(ctx: CreateTaskContext): Promise<CreatedResearchTask> {
  // Before the first send: a task the service made for us cannot be older (beyond clock skew).
  const createdAfter = new Date().toISOString();
  // Every create after the first looks for an earlier one's task before sending (after a resume too).
  let creates = 0;
  for (;;) {
    try {
      // Not cancellable while in flight: a create abandoned midway could leave a task nobody follows.
      return await untilOperatorFixes(() => {
        // Cancelled before sending (before the first create, or while waiting for a top-up): nothing is created.
        throwIfCancelled();
        return CancellationScope.nonCancellable(() =>
          createCalls.createResearchTask({
            request: ctx.request,
            requestKey: ctx.requestKey,
            ...(creates++ > 0 ? { mayHaveBeenSent: true, createdAfter } : {}),
          }),
        );
      }, ctx.operator);
    } catch (error) {
      if (failureType(error) !== FailureType.CreateOutcomeUnknown) throw error;
      const found = await reconcileUnlessCancelled(ctx, createdAfter);
      if (found) return found;
      log.warn('create outcome unknown and no task found after reconciling: creating again', { requestKey: ctx.requestKey });
    }
  }
}

/**
 * Reconciles; when the workflow is cancelled meanwhile, looks once more (not cancellable) so a task the
 * lost create did make is returned: the caller then sees the cancellation and cancels that task at the
 * service instead of leaving a paid task nobody follows.
 */
async function reconcileUnlessCancelled(ctx: CreateTaskContext, createdAfter: string): Promise<CreatedResearchTask | undefined> {
  try {
    return await reconcile(ctx, createdAfter);
  } catch (error) {
    if (!isCancellation(error)) throw error;
    const query = ctx.request.query ?? ctx.request.input;
    const found = await CancellationScope.nonCancellable(() =>
      lookups.findResearchTask({ requestKey: ctx.requestKey, createdAfter, ...(query !== undefined ? { query } : {}) }).catch(() => null),
    );
    if (!found) throw error;
    log.warn('cancelled while reconciling a lost create: the task was found and will be cancelled at the service', {
      requestKey: ctx.requestKey,
      deepresearchId: found.deepresearchId,
    });
    return found;
  }
}

/**
 * Looks for the task the lost create may have made; undefined only when the last lookup showed it was
 * not created. When the lookups cannot settle it (the list cannot be read, or candidates do not show
 * whose they are), only an operator's decision (or a webhook naming the task) does: creating again
 * blindly could pay for the task twice.
 */
async function reconcile(ctx: CreateTaskContext, createdAfter: string): Promise<CreatedResearchTask | undefined> {
  ctx.model.waitingFor = 'reconciling_create';
  ctx.model.detail = 'create sent but no answer came back: looking for the task before creating again (or send resolveCreate)';
  ctx.publish();
  const query = ctx.request.query ?? ctx.request.input;
  const since = Date.now();
  const counted = <T>(result: T): T => {
    ctx.model.reconcilingMs += Date.now() - since;
    return result;
  };
  // A later inconclusive lookup outweighs an earlier "absent": the task may have shown up meanwhile.
  let lastShowedAbsent = false;
  let evidence = 'the task list could not be read';
  for (const delayMs of [0, ...(ctx.reconcileDelaysMs ?? RECONCILE_DELAYS_MS)]) {
    if (delayMs > 0) await condition(ctx.hasDecision, delayMs);
    if (ctx.hasDecision()) return counted(await decide(ctx));
    try {
      const found = await lookups.findResearchTask({ requestKey: ctx.requestKey, createdAfter, ...(query !== undefined ? { query } : {}) });
      if (found) return counted(found);
      lastShowedAbsent = true;
    } catch (error) {
      if (isCancellation(error)) throw error;
      lastShowedAbsent = false;
      evidence = failureMessage(error);
      log.warn('could not settle whether a lost create made a task', { requestKey: ctx.requestKey, error: String(error) });
    }
  }
  if (lastShowedAbsent) return counted(undefined);
  // Only a person can settle it now: the evidence is shown, the wait is bounded, and creating again
  // blindly could pay for the task twice.
  const waitMs = ctx.decisionWaitMs ?? CREATE_DECISION_WAIT_MS;
  ctx.model.detail = `create sent but no answer came back, and the task list cannot be read or does not settle whether the task exists (${evidence}): send the resolveCreateOutcome update (or resolveCreate signal) with {adoptTaskId: "<task id>"} or {createAgain: true}; without a decision the item fails in ${Math.round(waitMs / 3_600_000)} h, not created again`;
  ctx.publish();
  if (!patched('bounded-create-decision')) {
    await condition(ctx.hasDecision);
    return counted(await decide(ctx));
  }
  if (await condition(ctx.hasDecision, waitMs)) return counted(await decide(ctx));
  counted(undefined);
  throw ApplicationFailure.create({
    type: FailureType.CreateOutcomeUnknown,
    nonRetryable: true,
    message: `no decision on a create whose outcome is unknown after ${Math.round(waitMs / 3_600_000)} h (${evidence}); it may have made a task at the service (request key ${ctx.requestKey}): look for it before running the item again`,
  });
}

/** How long a create whose outcome nobody can settle waits for an operator's decision before the item fails. */
export const CREATE_DECISION_WAIT_MS = 7 * 24 * 3_600_000;

/** Applies an operator's (or a webhook's) decision: adopt that task, or create again. */
async function decide(ctx: CreateTaskContext): Promise<CreatedResearchTask | undefined> {
  const decision = ctx.takeDecision();
  if (!decision || !('adoptTaskId' in decision)) return undefined;
  const snapshot = await shortCalls.getResearchTask({ deepresearchId: decision.adoptTaskId });
  return { deepresearchId: snapshot.deepresearchId, status: snapshot.status, mode: snapshot.mode, createdAt: '', webhookConfigured: false, adopted: true };
}
