import { log } from '@temporalio/activity';
import type { CreateTaskRequest, Task, TaskSummary } from '../api';
import type { ActivityDeps } from './deps';
import { callOptions, currentAttempt, webhookUrlFor } from './context';
import { rethrowCreateFailure } from './create-outcome';
import { callService } from './errors';
import type { CreatedResearchTask, CreateResearchTaskInput, FindResearchTaskInput, TaskIdInput, TaskSnapshot } from './types';

/** Metadata key that ties a service task to the request that created it. */
export const REQUEST_KEY_FIELD = 'rp_request_key';

/** How many recent tasks `findResearchTask` looks through (the list route's page). */
const FIND_LIMIT = 100;

/** Activities that create, find and read DeepResearch tasks. */
export function taskActivities(deps: ActivityDeps) {
  const { api, secrets } = deps;

  /** The task created for `requestKey`, or null; with duplicates, the oldest (the first one created). */
  async function findResearchTask({ requestKey }: FindResearchTaskInput): Promise<CreatedResearchTask | null> {
    const tasks = await callService(() => api.listTasks({ limit: FIND_LIMIT }, callOptions()));
    const matches = tasks.filter((task) => task.metadata?.[REQUEST_KEY_FIELD] === requestKey);
    // The list is newest first, so the last match is the original.
    const found = matches.at(-1);
    if (!found) return null;
    if (matches.length > 1) {
      log.warn('Several service tasks carry one request key; adopting the oldest', { requestKey, deepresearchIds: matches.map((task) => task.deepresearch_id) });
    }
    return adopt(found);
  }

  async function adopt(summary: TaskSummary): Promise<CreatedResearchTask> {
    // The list may omit mode and creation time; the task itself has both.
    const full: Pick<Task, 'mode' | 'created_at' | 'status'> = summary.mode && summary.created_at
      ? { mode: summary.mode, created_at: summary.created_at, status: summary.status }
      : await callService(() => api.getTask(summary.deepresearch_id, callOptions()));
    return {
      deepresearchId: summary.deepresearch_id,
      status: full.status,
      mode: full.mode,
      createdAt: full.created_at,
      // Webhooks can only be verified with the secret; without it the workflow must poll.
      webhookConfigured: (await secrets.get(summary.deepresearch_id)) !== undefined,
      adopted: true,
    };
  }

  /**
   * Creates a paid task tagged with `rp_request_key`. A retry first adopts the task an earlier attempt
   * may have created; an ambiguous failure is non-retryable `CreateOutcomeUnknown` (see create-outcome.ts).
   */
  async function createResearchTask({ request, requestKey, mayHaveBeenSent }: CreateResearchTaskInput): Promise<CreatedResearchTask> {
    if (currentAttempt() > 1 || mayHaveBeenSent) {
      const existing = await findResearchTask({ requestKey });
      if (existing) return existing;
    }
    const webhookUrl = request.webhook_url ?? webhookUrlFor(deps.webhookBaseUrl);
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
