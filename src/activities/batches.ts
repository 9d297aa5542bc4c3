import { log } from '@temporalio/activity';
import { BATCH_STATUSES, ResearchApiError, type Batch, type BatchStatus, type CreateBatchRequest } from '../api';
import type { ActivityDeps } from './deps';
import { z } from 'zod';
import { callOptions, refuseOwnWebhookUrl, currentAttempt, heartbeat, webhookUrlFor } from './context';
import { STATE_REFUSAL_STATUSES, callService, invalidInput, rethrowAsFailure } from './errors';
import { collectBatchPage } from './batch-collect';
import { REQUEST_KEY_FIELD } from './tasks';
import type { AddBatchTasksInput, AddedBatchTasks, BatchCancelResult, BatchIdInput, BatchSnapshot, CreateBatchInput, CreatedBatch } from './types';

/** The service's limit on tasks per add-tasks request. */
export const MAX_TASKS_PER_ADD = 100;

const FINISHED_BATCH_STATUSES: readonly BatchStatus[] = BATCH_STATUSES.filter((status) => status !== 'open' && status !== 'processing');

/** Request body size one add call stays under (the emulator, like many gateways, refuses over 1 MiB). */
export const MAX_ADD_BODY_BYTES = 900_000;

/** Splits tasks, in order, into groups whose JSON stays under `maxBytes` (a task larger than that goes alone). */
export function bySize<T>(items: readonly T[], maxBytes: number): T[][] {
  const groups: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    const itemBytes = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (current.length > 0 && size + itemBytes > maxBytes) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += itemBytes;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** One line of a task list kept in the store. */
const batchTaskLine = z.strictObject({ id: z.string().min(1, 'must not be empty'), query: z.string().min(1, 'must not be empty') });

/** Activities of the service's batch API. */
export function batchActivities(deps: ActivityDeps) {
  const { api, secrets } = deps;

  /**
   * Creates a batch tagged with `rp_request_key`, keeping its webhook secret out of the result. Creating
   * a batch costs nothing, so failures retry normally; a retry first adopts the batch an earlier attempt made.
   */
  async function createResearchBatch({ request, requestKey }: CreateBatchInput): Promise<CreatedBatch> {
    if (currentAttempt() > 1) {
      const batches = await callService(() => api.listBatches(callOptions()));
      const existing = batches.find((batch) => batch.metadata?.[REQUEST_KEY_FIELD] === requestKey);
      if (existing)
        return { batchId: existing.batch_id, status: existing.status, webhookConfigured: (await secrets.get(existing.batch_id)) !== undefined, adopted: true };
    }
    refuseOwnWebhookUrl(request.webhook_url, deps.webhookBaseUrl);
    const webhookUrl = request.webhook_url ?? webhookUrlFor(deps.webhookBaseUrl, deps.intakeKey);
    const body: CreateBatchRequest = {
      ...request,
      metadata: { ...request.metadata, [REQUEST_KEY_FIELD]: requestKey },
      ...(webhookUrl ? { webhook_url: webhookUrl } : {}),
    };
    const batch = await callService(() => api.createBatch(body, callOptions()));
    const { webhook_secret: secret } = batch;
    if (secret) await secrets.put(batch.batch_id, secret);
    log.info('Research batch created', { batchId: batch.batch_id, requestKey });
    return { batchId: batch.batch_id, status: batch.status, webhookConfigured: secret !== undefined, adopted: false };
  }

  /**
   * Adds up to 100 tasks. Adding is paid, so a retry (or a call asked to reconcile) first lists the
   * batch's task ids and adds only the missing ones; `skipped` counts the ids already there.
   */
  async function addResearchBatchTasks({ batchId, tasks: given, tasksRef, reconcile }: AddBatchTasksInput): Promise<AddedBatchTasks> {
    const tasks = tasksRef ? await readTaskLines(tasksRef) : given;
    if (tasks.length === 0 || tasks.length > MAX_TASKS_PER_ADD) {
      throw invalidInput(`tasks: ${tasks.length} given; add 1 to ${MAX_TASKS_PER_ADD} tasks per call`);
    }
    heartbeat({ batchId });
    const existing = reconcile || currentAttempt() > 1 ? await existingTaskIds(batchId) : new Set<string>();
    const missing = tasks.filter((entry) => !existing.has(entry.id));
    const skipped = tasks.length - missing.length;
    if (missing.length === 0) {
      const batch = await callService(() => api.getBatch(batchId, callOptions()));
      return { added: 0, skipped, counts: batch.counts };
    }
    // 100 long queries can pass a request body limit: send them in as many calls as their size needs.
    let added = 0;
    let counts: AddedBatchTasks['counts'] | undefined;
    for (const group of bySize(missing, MAX_ADD_BODY_BYTES)) {
      const answer = await callService(() => api.addBatchTasks(batchId, group, callOptions()));
      added += answer.added;
      counts = answer.counts;
      heartbeat({ batchId, added });
    }
    // bySize yields at least one group for a non-empty list, so the loop ran and set counts.
    return { added, skipped, counts: counts! };
  }

  async function existingTaskIds(batchId: string): Promise<Set<string>> {
    const ids = new Set<string>();
    let lastKey: string | undefined;
    for (;;) {
      const page = await callService(() => api.listBatchTasksPage(batchId, { limit: 100, ...(lastKey ? { last_key: lastKey } : {}) }, callOptions()));
      for (const entry of page.tasks) if (entry.task_id) ids.add(entry.task_id);
      // Paging through a large batch takes a while: show the activity is alive.
      heartbeat({ batchId, listed: ids.size });
      if (!page.pagination.has_more || !page.pagination.last_key) return ids;
      lastKey = page.pagination.last_key;
    }
  }

  /** Lines [offset, offset + limit) of a JSON-lines task list in the store, each checked. */
  async function readTaskLines({ key, offset, limit }: NonNullable<AddBatchTasksInput['tasksRef']>): Promise<Array<{ id: string; query: string }>> {
    const text = Buffer.from(await deps.store.get(key)).toString('utf8');
    const lines = text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .slice(offset, offset + limit);
    return lines.map((line, index) => {
      const where = `${key} line ${offset + index + 1}`;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        throw invalidInput(`${where}: not JSON`);
      }
      const task = batchTaskLine.safeParse(parsed);
      if (!task.success)
        throw invalidInput(`${where}: ${task.error.issues.map((issue) => `${issue.path.join('.') || '(line)'}: ${issue.message}`).join('; ')}`);
      return task.data;
    });
  }

  /** Status, counts and cost of a batch. */
  async function getResearchBatch({ batchId }: BatchIdInput): Promise<BatchSnapshot> {
    return snapshotOfBatch(await callService(() => api.getBatch(batchId, callOptions())));
  }

  /** Cancels a batch's queued and running tasks; a batch that already ended is `cancelled: false`. */
  async function cancelResearchBatch({ batchId }: BatchIdInput): Promise<BatchCancelResult> {
    try {
      const answer = await api.cancelBatch(batchId, callOptions());
      return { cancelled: true, status: answer.status, cancelledCount: answer.cancelled_count };
    } catch (error) {
      const refusal = error instanceof ResearchApiError && error.kind === 'http' && STATE_REFUSAL_STATUSES.includes(error.status ?? 0);
      if (!refusal) rethrowAsFailure(error);
      const batch = await callService(() => api.getBatch(batchId, callOptions()));
      if (FINISHED_BATCH_STATUSES.includes(batch.status)) return { cancelled: false, status: batch.status, cancelledCount: 0 };
      return rethrowAsFailure(error, { refusedStatuses: STATE_REFUSAL_STATUSES });
    }
  }

  return {
    createResearchBatch,
    addResearchBatchTasks,
    getResearchBatch,
    collectResearchBatchPage: collectBatchPage(deps),
    cancelResearchBatch,
  };
}

/** The history-safe view of a batch. */
export function snapshotOfBatch(batch: Batch): BatchSnapshot {
  return { batchId: batch.batch_id, status: batch.status, counts: batch.counts, ...(batch.cost !== undefined ? { cost: batch.cost } : {}) };
}
