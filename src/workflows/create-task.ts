import { CancellationScope, condition, isCancellation, log, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { CreatedResearchTask } from '../activities/types';
import type { CreateTaskRequest } from '../api/schemas';
import { throwIfCancelled } from './cancellation';
import { failureType } from './failure-info';
import { FailureType } from './failures';
import { untilOperatorFixes, type OperatorGate } from './operator-remedy';
import { RECONCILE_DELAYS_MS } from './polling';
import type { ResearchTaskModel } from './task-state';
import type { CreateDecision } from './types';

type Activities = ActivityInterfaceFor<ReturnType<typeof createActivities>>;

/** What `createTaskDurably` needs from the workflow around it. */
export interface CreateTaskContext {
  request: CreateTaskRequest;
  requestKey: string;
  creates: Activities;
  calls: Activities;
  /** Activities with few retries, for lookups the workflow can go on without. */
  lookups: Activities;
  model: ResearchTaskModel;
  publish(): void;
  /** Where waits for an operator (402, 401, 403) show. */
  operator: OperatorGate;
  hasDecision(): boolean;
  takeDecision(): CreateDecision | undefined;
  /** Delays between looks at the task list; RECONCILE_DELAYS_MS unless set. */
  reconcileDelaysMs?: readonly number[];
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
      return await untilOperatorFixes(
        () => {
          // Cancelled before sending (before the first create, or while waiting for a top-up): nothing is created.
          throwIfCancelled();
          return CancellationScope.nonCancellable(() => ctx.creates.createResearchTask({ request: ctx.request, requestKey: ctx.requestKey, ...(creates++ > 0 ? { mayHaveBeenSent: true, createdAfter } : {}) }));
        },
        ctx.operator,
      );
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
      ctx.lookups.findResearchTask({ requestKey: ctx.requestKey, createdAfter, ...(query !== undefined ? { query } : {}) }).catch(() => null));
    if (!found) throw error;
    log.warn('cancelled while reconciling a lost create: the task was found and will be cancelled at the service', { requestKey: ctx.requestKey, deepresearchId: found.deepresearchId });
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
  // A later inconclusive lookup outweighs an earlier "absent": the task may have shown up meanwhile.
  let lastShowedAbsent = false;
  for (const delayMs of [0, ...(ctx.reconcileDelaysMs ?? RECONCILE_DELAYS_MS)]) {
    if (delayMs > 0) await condition(ctx.hasDecision, delayMs);
    if (ctx.hasDecision()) return decide(ctx);
    try {
      const found = await ctx.lookups.findResearchTask({ requestKey: ctx.requestKey, createdAfter, ...(query !== undefined ? { query } : {}) });
      if (found) return found;
      lastShowedAbsent = true;
    } catch (error) {
      if (isCancellation(error)) throw error;
      lastShowedAbsent = false;
      log.warn('could not settle whether a lost create made a task', { requestKey: ctx.requestKey, error: String(error) });
    }
  }
  if (lastShowedAbsent) return undefined;
  ctx.model.detail = 'create sent but no answer came back, and the task list cannot be read or does not settle whether the task exists: send resolveCreate with {adoptTaskId} or {createAgain: true}';
  ctx.publish();
  await condition(ctx.hasDecision);
  return decide(ctx);
}

/** Applies an operator's (or a webhook's) decision: adopt that task, or create again. */
async function decide(ctx: CreateTaskContext): Promise<CreatedResearchTask | undefined> {
  const decision = ctx.takeDecision();
  if (!decision || !('adoptTaskId' in decision)) return undefined;
  const snapshot = await ctx.calls.getResearchTask({ deepresearchId: decision.adoptTaskId });
  return { deepresearchId: snapshot.deepresearchId, status: snapshot.status, mode: snapshot.mode, createdAt: '', webhookConfigured: false, adopted: true };
}
