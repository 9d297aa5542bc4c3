import { z } from 'zod';
import { metadata, researchMode } from './common';
import { outputFormats, task, taskStatus } from './tasks';
import { webhookUrl } from './webhook-url';
import { isRecord } from '../../shared/guards';
import { batchLimitProblem } from '../../shared/batch-limits';

/** Batch states. */
export const BATCH_STATUSES = ['open', 'processing', 'completed', 'completed_with_errors', 'cancelled'] as const;
export const batchStatus = z.enum(BATCH_STATUSES);
export type BatchStatus = z.infer<typeof batchStatus>;

/** Task counts of a batch (spec 2.7). */
export const batchCounts = z.looseObject({
  total: z.int().min(0),
  queued: z.int().min(0),
  running: z.int().min(0),
  completed: z.int().min(0),
  failed: z.int().min(0),
  cancelled: z.int().min(0),
});
export type BatchCounts = z.infer<typeof batchCounts>;

/** Refuses the task features batches cannot use, naming each one. */
function refuseBatchOnlyFeatures(value: Record<string, unknown>, ctx: z.RefinementCtx): void {
  for (const key of Object.keys(value)) {
    const problem = batchLimitProblem(key);
    if (problem) ctx.addIssue({ code: 'custom', path: [key], message: problem });
  }
}

/** `POST /v1/deepresearch/batches` body: configuration shared by every task in the batch. */
export const createBatchRequest = z
  .looseObject({
    name: z.string().min(1).max(200).optional(),
    mode: researchMode.optional(),
    output_formats: outputFormats.optional(),
    search: z.record(z.string(), z.unknown()).optional(),
    webhook_url: webhookUrl.optional(),
    metadata: metadata.optional(),
  })
  .superRefine((value, ctx) => {
    const allowed = new Set(['name', 'mode', 'output_formats', 'search', 'webhook_url', 'metadata']);
    refuseBatchOnlyFeatures(value, ctx);
    for (const key of Object.keys(value)) {
      if (!allowed.has(key) && !batchLimitProblem(key)) ctx.addIssue({ code: 'custom', path: [key], message: 'is not a batch field' });
    }
  });
export type CreateBatchRequest = z.input<typeof createBatchRequest>;

/** A batch as the service reports it. */
export const batch = z.looseObject({
  batch_id: z.string().min(1),
  name: z.string().optional(),
  status: batchStatus,
  mode: researchMode.optional(),
  counts: batchCounts,
  cost: z.number().optional(),
  created_at: z.string().optional(),
  metadata: metadata.optional(),
  output_formats: z.array(z.unknown()).optional(),
  webhook_secret: z.string().optional(),
});
export type Batch = z.infer<typeof batch>;

/** Create returns the batch itself; some deployments wrap it as `{ success, batch }`. Both parse to the batch. */
// Unwrapped before parsing rather than a union, so a failure names the bad field instead of "Invalid input".
export const createBatchResponse = z.preprocess(
  (body) => (isRecord(body) && isRecord(body.batch) ? body.batch : body),
  batch,
);


/** `GET /v1/deepresearch/batches/{id}` response. */
export const getBatchResponse = z.looseObject({ success: z.boolean().optional(), batch });

/** `GET /v1/deepresearch/batches` response. */
export const listBatchesResponse = z.looseObject({ success: z.boolean().optional(), batches: z.array(batch) });

/** One task added to a batch: `id` is the caller's own key, returned as `batch_task_id`. */
export const batchTaskInput = z.looseObject({
  query: z.string().trim().min(1, 'must not be empty').max(25_000, 'is at most 25,000 characters'),
  id: z.string().min(1, 'must not be empty').max(256),
  metadata: metadata.optional(),
}).superRefine(refuseBatchOnlyFeatures);
export type BatchTaskInput = z.infer<typeof batchTaskInput>;

/** `POST /v1/deepresearch/batches/{id}/tasks` body: 1 to 100 tasks with distinct ids. */
export const addBatchTasksRequest = z.strictObject({
  tasks: z.array(batchTaskInput).min(1, 'needs at least 1 task').max(100, 'at most 100 tasks per request')
    .superRefine((tasks, ctx) => {
      const seen = new Set<string>();
      tasks.forEach((entry, index) => {
        if (seen.has(entry.id)) ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `duplicate task id "${entry.id}"` });
        seen.add(entry.id);
      });
    }),
});
export type AddBatchTasksRequest = z.input<typeof addBatchTasksRequest>;

/** `POST /v1/deepresearch/batches/{id}/tasks` response. */
export const addBatchTasksResponse = z.looseObject({
  batch_id: z.string(),
  added: z.int().min(0),
  tasks: z.array(z.looseObject({ task_id: z.string(), deepresearch_id: z.string(), status: taskStatus })),
  counts: batchCounts,
});
export type AddBatchTasksResponse = z.infer<typeof addBatchTasksResponse>;

/** Query of `GET /v1/deepresearch/batches/{id}/tasks`. */
export const listBatchTasksQuery = z.strictObject({
  status: taskStatus.optional(),
  limit: z.int().min(1).max(100).optional(),
  last_key: z.string().min(1).optional(),
  include_output: z.boolean().optional(),
});
export type ListBatchTasksQuery = z.input<typeof listBatchTasksQuery>;

/** One page of a batch's tasks. */
export const listBatchTasksResponse = z.looseObject({
  success: z.boolean().optional(),
  batch_id: z.string().optional(),
  tasks: z.array(task.partial({ query: true, mode: true, created_at: true })),
  pagination: z.looseObject({ count: z.int().min(0), last_key: z.string().nullable().optional(), has_more: z.boolean() }),
});
export type ListBatchTasksResponse = z.infer<typeof listBatchTasksResponse>;
export type BatchTask = ListBatchTasksResponse['tasks'][number];

/** `POST /v1/deepresearch/batches/{id}/cancel` response. */
export const cancelBatchResponse = z.looseObject({
  batch_id: z.string(),
  status: z.literal('cancelled'),
  cancelled_count: z.int().min(0),
});
export type CancelBatchResponse = z.infer<typeof cancelBatchResponse>;
