import { ApplicationFailure, log } from '@temporalio/activity';
import type { CreateTaskRequest, Task } from '../api';
import { FailureType } from '../domain/failures';
import type { ActivityDeps } from './deps';
import { callOptions, refuseOwnWebhookUrl, currentAttempt, firstScheduledAt, webhookUrlFor } from './context';
import { rethrowCreateFailure } from './create-outcome';
import { callService } from './errors';
import { lookForTask, REQUEST_KEY_FIELD } from './find-task';
import type { CreatedResearchTask, CreateResearchTaskInput, FindResearchTaskInput, TaskIdInput, TaskSnapshot } from './types';

export { REQUEST_KEY_FIELD } from './find-task';

/** Activities that create, find and read DeepResearch tasks. */
export function taskActivities(deps: ActivityDeps) {
  const { api, secrets } = deps;

  /**
   * The task created for `requestKey`, or null when the service's records show it was not created (see
   * `lookForTask` for when that holds). When they cannot settle it, a non-retryable `CreateOutcomeUnknown`:
   * only an operator's decision may then create again.
   */
  async function findResearchTask({ requestKey, query, createdAfter }: FindResearchTaskInput): Promise<CreatedResearchTask | null> {
    const after = createdAfter === undefined ? undefined : Date.parse(createdAfter);
    const verdict = await lookForTask(api, { requestKey, query, createdAfter: after !== undefined && Number.isFinite(after) ? after : undefined });
    if (verdict.kind === 'absent') return null;
    if (verdict.kind === 'inconclusive') {
      throw ApplicationFailure.create({
        type: FailureType.CreateOutcomeUnknown,
        message: `cannot tell whether the task for request key ${requestKey} was created: ${verdict.reason}`,
        nonRetryable: true,
      });
    }
    if (verdict.duplicates.length > 0) {
      log.warn('Several service tasks carry one request key; adopting the oldest', {
        requestKey,
        deepresearchId: verdict.task.deepresearch_id,
        duplicates: verdict.duplicates,
      });
    }
    const { task } = verdict;
    return {
      deepresearchId: task.deepresearch_id,
      status: task.status,
      mode: task.mode,
      createdAt: task.created_at,
      // Webhooks can only be verified with the secret; without it the workflow must poll.
      webhookConfigured: (await secrets.get(task.deepresearch_id)) !== undefined,
      adopted: true,
    };
  }

  /**
   * Creates a paid task tagged with `rp_request_key`. A retry first adopts the task an earlier attempt
   * may have created; an ambiguous failure is non-retryable `CreateOutcomeUnknown` (see create-outcome.ts).
   */
  async function createResearchTask({ request, requestKey, mayHaveBeenSent, createdAfter }: CreateResearchTaskInput): Promise<CreatedResearchTask> {
    if (currentAttempt() > 1 || mayHaveBeenSent) {
      // An earlier attempt or create may have been cut off mid-request (a crash, a timeout): look first.
      const scheduledAt = firstScheduledAt();
      const since = createdAfter ?? (scheduledAt !== undefined ? new Date(scheduledAt).toISOString() : undefined);
      const existing = await findResearchTask({
        requestKey,
        ...(queryOf(request) !== undefined ? { query: queryOf(request) } : {}),
        ...(since !== undefined ? { createdAfter: since } : {}),
      });
      if (existing) return existing;
    }
    refuseOwnWebhookUrl(request.webhook_url, deps.webhookBaseUrl);
    const webhookUrl = request.webhook_url ?? webhookUrlFor(deps.webhookBaseUrl, deps.intakeKey);
    const body: CreateTaskRequest = {
      ...request,
      metadata: { ...request.metadata, [REQUEST_KEY_FIELD]: requestKey },
      ...(webhookUrl ? { webhook_url: webhookUrl } : {}),
    };
    let created;
    try {
      created = await api.createTask(body, callOptions());
    } catch (error) {
      rethrowCreateFailure(error, `creating the research task for request key ${requestKey}`);
    }
    const { webhook_secret: secret } = created;
    if (secret) await secrets.put(created.deepresearch_id, secret);
    log.info('Research task created', { deepresearchId: created.deepresearch_id, status: created.status, requestKey });
    return {
      deepresearchId: created.deepresearch_id,
      status: created.status,
      mode: created.mode,
      createdAt: created.created_at,
      webhookConfigured: secret !== undefined,
      adopted: false,
    };
  }

  /** Status, progress, checkpoint, cost and error of a task; never its output, sources or messages. */
  async function getResearchTask({ deepresearchId }: TaskIdInput): Promise<TaskSnapshot> {
    const task = await callService(() => api.getTask(deepresearchId, callOptions()));
    return snapshotOf(task);
  }

  return { createResearchTask, findResearchTask, getResearchTask };
}

/** The query a create request sends (`input` is its deprecated alias); undefined for a workflow template run. */
export function queryOf(request: CreateTaskRequest): string | undefined {
  return request.query ?? request.input;
}

/** The small, history-safe view of a task. */
export function snapshotOf(task: Task): TaskSnapshot {
  return {
    deepresearchId: task.deepresearch_id,
    status: task.status,
    mode: task.mode,
    ...(task.progress ? { progress: { currentStep: task.progress.current_step, totalSteps: task.progress.total_steps } } : {}),
    ...(task.interaction ? { interaction: task.interaction } : {}),
    ...(task.cost !== undefined ? { cost: task.cost } : {}),
    ...(task.error !== undefined ? { error: task.error } : {}),
    ...(task.completed_at !== undefined ? { completedAt: task.completed_at } : {}),
  };
}
