import { z } from 'zod';
import {
  addBatchTasksRequest,
  createBatchRequest,
  listBatchTasksQuery,
  type AddBatchTasksResponse,
  type Batch,
  type CancelBatchResponse,
  type listBatchTasksResponse,
} from '../../api/schemas/batches';
import type { TaskStatus } from '../../api/schemas/tasks';
import { generateWebhookSecret } from '../../api/webhooks';
import { randomUuid } from '../random';
import { EmulatorHttpError, type Account, type EmulatorContext } from '../types';
import { liteAsStandard, parseRequest } from '../validation';
import { allStopped, emptyCounts, recount, type BatchRecord } from './batch-record';
import type { ResearchOptions } from './options';
import { roundUsd } from '../accounts';
import { newTaskRecord, outputFormatsOf, priceOf, toolSetOf } from './task-factory';
import type { TaskRecord } from './task-record';
import type { TaskService } from './task-service';
import { batchTaskView } from './views';
import { batchView, batchWebhookBody, queryObject } from './batch-views';
import type { WebhookSender } from './webhook-sender';

const listBatchesQuery = z.strictObject({ limit: z.int().min(1, 'must be at least 1').max(100, 'must be at most 100').optional() });

const FINISHED: ReadonlySet<string> = new Set(['completed', 'completed_with_errors', 'cancelled']);

/** Batches of DeepResearch tasks run with one shared configuration (ARCHITECTURE: batch facts). */
export class BatchService {
  readonly #batches = new Map<string, BatchRecord>();
  readonly #byOrganization = new Map<string, string[]>();

  constructor(
    private readonly ctx: EmulatorContext,
    private readonly options: ResearchOptions,
    private readonly tasks: TaskService,
    private readonly webhooks: WebhookSender,
  ) {}

  /** `POST /v1/deepresearch/batches`: an `open` batch; the webhook secret is shown only here. */
  create(account: Account, body: unknown): Batch {
    const now = this.tasks.lifecycle.sync();
    const request = parseRequest(createBatchRequest, liteAsStandard(body));
    const batch: BatchRecord = {
      id: `batch_${randomUuid(this.ctx.random)}`,
      organization: account.organization,
      name: request.name,
      config: {
        mode: request.mode ?? 'standard',
        outputFormats: outputFormatsOf(request.output_formats),
        tools: toolSetOf(undefined),
        deliverables: [],
        checkpoints: [],
        urls: [],
      },
      search: request.search,
      metadata: request.metadata,
      createdAt: now,
      webhookUrl: request.webhook_url,
      webhookSecret: request.webhook_url ? generateWebhookSecret() : undefined,
      status: 'open',
      taskIds: [],
      positions: new Map(),
      keys: new Set(),
      counts: emptyCounts(),
      costUsd: 0,
    };
    this.#batches.set(batch.id, batch);
    let ids = this.#byOrganization.get(batch.organization);
    if (!ids) this.#byOrganization.set(batch.organization, (ids = []));
    ids.push(batch.id);
    return { ...batchView(batch), ...(batch.webhookSecret ? { webhook_secret: batch.webhookSecret } : {}) };
  }

  /** `GET .../batches/:id`: the batch itself, as both official clients read it. */
  get(account: Account, id: string): Batch {
    this.tasks.lifecycle.sync();
    return batchView(this.#require(id, account));
  }

  /** `GET /v1/deepresearch/batches[?limit=N]`: a bare array, newest first. */
  list(account: Account, query: URLSearchParams): Batch[] {
    this.tasks.lifecycle.sync();
    const { limit } = parseRequest(listBatchesQuery, queryObject(query), 'query');
    const ids = [...(this.#byOrganization.get(account.organization) ?? [])].reverse().slice(0, limit);
    return ids.flatMap((id) => {
      const batch = this.#batches.get(id);
      return batch ? [batchView(batch)] : [];
    });
  }

  /**
   * `POST .../batches/:id/tasks`: 1 to 100 tasks. The whole add is charged in one go, so a short
   * balance rejects all of it with 402 and adds nothing.
   */
  add(account: Account, id: string, body: unknown): AddBatchTasksResponse {
    const now = this.tasks.lifecycle.sync();
    const batch = this.#require(id, account);
    const { tasks } = parseRequest(addBatchTasksRequest, body);
    if (FINISHED.has(batch.status)) {
      throw EmulatorHttpError.of(409, `Batch is ${batch.status}; tasks can be added only while it is open or processing`);
    }
    tasks.forEach((entry, index) => {
      if (entry.id !== undefined && batch.keys.has(entry.id))
        throw EmulatorHttpError.of(400, `Invalid request parameters: tasks[${index}].id: duplicate task id "${entry.id}" (already in this batch)`);
    });
    const price = priceOf(batch.config, this.options);
    this.ctx.accounts.charge(account, roundUsd(price.costUsd * tasks.length), `deepresearch batch ${batch.id}: ${tasks.length} ${batch.config.mode} tasks`);
    batch.status = 'processing';
    batch.costUsd = roundUsd(batch.costUsd + price.costUsd * tasks.length);
    const added = tasks.map((entry) => {
      const metadata = batch.metadata || entry.metadata ? { ...batch.metadata, ...entry.metadata } : undefined;
      const task = newTaskRecord(
        {
          id: randomUuid(this.ctx.random),
          organization: batch.organization,
          query: entry.query,
          config: batch.config,
          metadata,
          costUsd: price.costUsd,
          costBreakdown: price.breakdown,
          batchId: batch.id,
          batchTaskId: entry.id,
        },
        this.ctx.random,
        this.options,
        now,
      );
      batch.positions.set(task.id, batch.taskIds.length);
      batch.taskIds.push(task.id);
      if (entry.id !== undefined) batch.keys.add(entry.id);
      this.tasks.lifecycle.admit(task, now, false);
      // Keyed with the batch task id (or the task's own id) too: equal metadata across a batch is not a duplicate creation.
      this.ctx.stats.recordTaskCreated({ ...metadata, batch_id: batch.id, batch_task_id: entry.id ?? task.id });
      return { ...(entry.id !== undefined ? { task_id: entry.id } : {}), deepresearch_id: task.id, status: 'queued' as const };
    });
    this.tasks.lifecycle.fillCapacity(now);
    return { batch_id: batch.id, added: added.length, tasks: added, counts: { ...batch.counts } };
  }

  /** `GET .../batches/:id/tasks`: pages in the order added; `last_key` is the last task id of the previous page. */
  listTasks(account: Account, id: string, query: URLSearchParams): z.input<typeof listBatchTasksResponse> {
    this.tasks.lifecycle.sync();
    const batch = this.#require(id, account);
    const { status, limit = 50, last_key: lastKey, include_output: includeOutput = false } = parseRequest(listBatchTasksQuery, queryObject(query));
    let index = 0;
    if (lastKey !== undefined) {
      const position = batch.positions.get(lastKey);
      if (position === undefined) throw EmulatorHttpError.of(400, 'Invalid request parameters: last_key: is not a key from a listing of this batch');
      index = position + 1;
    }
    const view = this.tasks.view();
    const page: TaskRecord[] = [];
    let hasMore = false;
    for (; index < batch.taskIds.length; index++) {
      const task = this.tasks.lifecycle.store.get(batch.taskIds[index]!);
      if (!task || (status !== undefined && task.status !== status)) continue;
      if (page.length === limit) {
        hasMore = true;
        break;
      }
      page.push(task);
    }
    return {
      batch_id: batch.id,
      tasks: page.map((task) => batchTaskView(task, view, includeOutput)),
      pagination: { count: page.length, last_key: page.at(-1)?.id ?? null, has_more: hasMore },
    };
  }

  /** `POST .../batches/:id/cancel`: cancels the batch's queued and running tasks. */
  cancel(account: Account, id: string): CancelBatchResponse {
    const now = this.tasks.lifecycle.sync();
    const batch = this.#require(id, account);
    if (FINISHED.has(batch.status)) throw EmulatorHttpError.of(409, `Batch is already ${batch.status}; only open or processing batches can be cancelled`);
    // Set first, so the cancellations below do not read as the batch finishing.
    batch.status = 'cancelled';
    batch.finishedAt = now;
    let cancelled = 0;
    for (const taskId of batch.taskIds) {
      const task = this.tasks.lifecycle.store.get(taskId);
      if (task && (task.status === 'queued' || task.status === 'running')) {
        this.tasks.lifecycle.cancel(task, now);
        cancelled += 1;
      }
    }
    return {
      batch_id: batch.id,
      status: 'cancelled',
      cancelled_count: cancelled,
      message: `Batch cancelled; ${cancelled} queued or running task(s) cancelled`,
    };
  }

  /** Keeps counts current and finishes the batch (with its webhook) when its last task stops. */
  onTaskStatus(task: TaskRecord, from: TaskStatus | undefined, at: number): void {
    const batch = task.batchId === undefined ? undefined : this.#batches.get(task.batchId);
    if (!batch) return;
    recount(batch.counts, from, task.status);
    if (batch.status !== 'processing' || !allStopped(batch.counts)) return;
    batch.status = batch.counts.failed + batch.counts.cancelled > 0 ? 'completed_with_errors' : 'completed';
    batch.finishedAt = at;
    if (batch.webhookUrl && batch.webhookSecret) {
      this.webhooks.send({ kind: 'batch', id: batch.id, url: batch.webhookUrl, secret: batch.webhookSecret, body: batchWebhookBody(batch, at) });
    }
  }

  #require(id: string, account: Account): BatchRecord {
    const batch = this.#batches.get(id);
    if (!batch || batch.organization !== account.organization) throw EmulatorHttpError.of(404, 'Batch not found');
    return batch;
  }
}
