import { CancellationScope, condition, log, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { CreatedResearchTask } from '../activities/types';
import type { CreateTaskRequest } from '../api/schemas';
import { failureType } from './failure-info';
import { FailureType } from './failures';
import { operatorRemedy, type OperatorRemedy } from './operator-remedy';
import { RECONCILE_DELAYS_MS } from './polling';
import type { ResearchTaskModel } from './task-state';
import type { CreateDecision, WaitReason } from './types';

type Activities = ActivityInterfaceFor<ReturnType<typeof createActivities>>;

/** What `createTaskDurably` needs from the workflow around it. */
export interface CreateTaskContext {
  request: CreateTaskRequest;
  requestKey: string;
  creates: Activities;
  calls: Activities;
  model: ResearchTaskModel;
  publish(): void;
  resumeRequested(): boolean;
  takeResume(): boolean;
  hasDecision(): boolean;
  takeDecision(): CreateDecision | undefined;
}

/**
 * Creates the paid task exactly once. 402, 401 and 403 wait for an operator's `resume`; an ambiguous outcome
 * (request sent, no answer) is reconciled against the service's task list, a webhook or an operator's
 * decision before the create is ever sent again.
 */
export async function createTaskDurably(ctx: CreateTaskContext): Promise<CreatedResearchTask> {
  for (;;) {
    try {
      // Not cancellable while in flight: a create abandoned midway could leave a task nobody follows.
      return await CancellationScope.nonCancellable(() => ctx.creates.createResearchTask({ request: ctx.request, requestKey: ctx.requestKey }));
    } catch (error) {
      const remedy = operatorRemedy(error);
      if (remedy) {
        await waitForOperator(ctx, remedy);
        continue;
      }
      if (failureType(error) !== FailureType.CreateOutcomeUnknown) throw error;
      const found = await reconcile(ctx);
      if (found) return found;
      log.warn('create outcome unknown and no task found after reconciling: creating again', { requestKey: ctx.requestKey });
    }
  }
}

/** What waiting for an operator needs from the workflow. */
export type OperatorWaitContext = Pick<CreateTaskContext, 'model' | 'publish' | 'resumeRequested' | 'takeResume'>;

/** Shows why the workflow waits and what to do, then waits for the `resume` signal. */
export async function waitForOperator(ctx: OperatorWaitContext, remedy: OperatorRemedy, then: WaitReason = 'creating'): Promise<void> {
  ctx.model.waitingFor = remedy.waitingFor;
  ctx.model.detail = remedy.detail;
  ctx.publish();
  await condition(ctx.resumeRequested);
  ctx.takeResume();
  ctx.model.waitingFor = then;
  ctx.model.detail = undefined;
  ctx.publish();
}

/** Looks for the task the lost create may have made; undefined when it surely was not made. */
async function reconcile(ctx: CreateTaskContext): Promise<CreatedResearchTask | undefined> {
  ctx.model.waitingFor = 'reconciling_create';
  ctx.model.detail = 'create sent but no answer came back: looking for the task before creating again (or send resolveCreate)';
  ctx.publish();
  for (const delayMs of [0, ...RECONCILE_DELAYS_MS]) {
    if (delayMs > 0) await condition(ctx.hasDecision, delayMs);
    const decision = ctx.takeDecision();
    if (decision && 'adoptTaskId' in decision) {
      const snapshot = await ctx.calls.getResearchTask({ deepresearchId: decision.adoptTaskId });
      return { deepresearchId: snapshot.deepresearchId, status: snapshot.status, mode: snapshot.mode, createdAt: '', webhookConfigured: false, adopted: true };
    }
    if (decision) return undefined;
    const found = await ctx.calls.findResearchTask({ requestKey: ctx.requestKey });
    if (found) return found;
  }
  return undefined;
}
