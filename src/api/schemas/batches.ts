import { z } from 'zod';
import { arrayOrWrapped, metadata, reportedMode, researchMode, serviceTimestamp } from './common';
import { outputFormats, taskStatus } from './tasks';
import { webhookUrl } from './webhook-url';
import { isRecord } from '../../shared/guards';
import { batchLimitProblem } from '../../shared/batch-limits';

/** The fields of a batch create, before the cross-field rules (pipeline definitions reuse them). */
export const createBatchFields = {
  name: z.string().min(1).max(200).optional(),
  mode: researchMode.optional(),
  model: researchMode.optional(),
  output_formats: outputFormats.optional(),
  search: z.record(z.string(), z.unknown()).optional(),
  webhook_url: webhookUrl.optional(),
  metadata: metadata.optional(),
  brand_collection_id: z.string().min(1, 'must not be empty').optional(),
};

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

const BATCH_FIELDS = new Set(['name', 'mode', 'model', 'output_formats', 'search', 'webhook_url', 'metadata', 'brand_collection_id']);

/**
 * `POST /v1/deepresearch/batches` body: configuration shared by every task in the batch. `model` is the
 * deprecated alias of `mode` both clients may send (the Python client sends both, equal); the parsed
 * value has `mode` only.
 */
export const createBatchRequest = z
  .looseObject(createBatchFields)
  .superRefine((value, ctx) => {
    refuseBatchOnlyFeatures(value, ctx);
    for (const key of Object.keys(value)) {
      if (!BATCH_FIELDS.has(key) && !batchLimitProblem(key)) ctx.addIssue({ code: 'custom', path: [key], message: 'is not a batch field' });
    }
    if (value.mode !== undefined && value.model !== undefined && value.mode !== value.model) {
      ctx.addIssue({ code: 'custom', path: ['model'], message: 'deprecated alias of mode; give one of them, not two different values' });
    }
  })
  .transform(({ model, ...rest }) => (rest.mode === undefined && model !== undefined ? { ...rest, mode: model } : rest));
export type CreateBatchRequest = z.input<typeof createBatchRequest>;

/** A batch as the service reports it. */
export const batch = z.looseObject({
  batch_id: z.string().min(1),
  name: z.string().optional(),
  status: batchStatus,
  mode: reportedMode.optional(),
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
export const createBatchResponse = z.preprocess((body) => (isRecord(body) && isRecord(body.batch) ? body.batch : body), batch);

/** `GET /v1/deepresearch/batches/{id}` response: the batch itself (both clients); an older report shows `{ batch }`, also read. */
export const getBatchResponse = createBatchResponse;

/** `GET /v1/deepresearch/batches` response: a bare array (both clients; the Python client also reads `{ batches }`). */
export const listBatchesResponse = arrayOrWrapped('batches', batch);

/**
 * One task added to a batch: `id`, optional, is the caller's own key, listed back as `task_id`. The per-task
 * fields are those the JS client sends (`strategy` is the deprecated alias of `research_strategy`).
 */
export const batchTaskInput = z
  .looseObject({
    query: z.string().trim().min(1, 'must not be empty').max(25_000, 'is at most 25,000 characters'),
    id: z.string().min(1, 'must not be empty').max(256).optional(),
    research_strategy: z.string().max(15_000).optional(),
    strategy: z.string().max(15_000).optional(),
    report_format: z.string().max(15_000).optional(),
    urls: z
      .array(z.url({ error: 'must be a URL' }))
      .max(10, 'at most 10 URLs')
      .optional(),
    metadata: metadata.optional(),
  })
  .superRefine(refuseBatchOnlyFeatures);
export type BatchTaskInput = z.infer<typeof batchTaskInput>;

/** `POST /v1/deepresearch/batches/{id}/tasks` body: 1 to 100 tasks with distinct ids. */
export const addBatchTasksRequest = z.strictObject({
  tasks: z
    .array(batchTaskInput)
    .min(1, 'needs at least 1 task')
    .max(100, 'at most 100 tasks per request')
    .superRefine((tasks, ctx) => {
      const seen = new Set<string>();
      tasks.forEach((entry, index) => {
        if (entry.id === undefined) return;
        if (seen.has(entry.id)) ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `duplicate task id "${entry.id}"` });
        seen.add(entry.id);
      });
    }),
});
export type AddBatchTasksRequest = z.input<typeof addBatchTasksRequest>;

/** `POST /v1/deepresearch/batches/{id}/tasks` response; `task_id` is there when the caller gave an `id`. */
export const addBatchTasksResponse = z.looseObject({
  batch_id: z.string(),
  added: z.int().min(0),
  tasks: z.array(z.looseObject({ task_id: z.string().optional(), deepresearch_id: z.string().min(1), status: taskStatus })),
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

/**
 * One task of a batch listing (the clients' `BatchTaskListItem`): the caller's id is `task_id` (an older
 * emulator wrote `batch_task_id`; either is read into `task_id`). Outputs come with `include_output=true`.
 */
export const batchTaskItem = z.looseObject({
  deepresearch_id: z.string().min(1),
  task_id: z.string().optional(),
  query: z.string(),
  status: taskStatus,
  created_at: serviceTimestamp,
  completed_at: z.string().optional(),
  output_type: z.enum(['markdown', 'json', 'toon']).optional(),
  output: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  sources: z.array(z.looseObject({ title: z.string().optional(), url: z.string().optional() })).optional(),
  images: z.array(z.unknown()).optional(),
  pdf_url: z.string().optional(),
  deliverables: z.unknown().optional(),
  error: z.string().optional(),
  cost: z.number().nonnegative().optional(),
});
export const batchTask = z.preprocess(
  (item) => (isRecord(item) && item.task_id === undefined && typeof item.batch_task_id === 'string' ? { ...item, task_id: item.batch_task_id } : item),
  batchTaskItem,
);
export type BatchTask = z.infer<typeof batchTask>;

/** One page of a batch's tasks (no `success` key: the clients add their own). */
export const listBatchTasksResponse = z.looseObject({
  batch_id: z.string().optional(),
  tasks: z.array(batchTask),
  pagination: z.looseObject({ count: z.int().min(0), last_key: z.string().nullable().optional(), has_more: z.boolean() }),
});
export type ListBatchTasksResponse = z.infer<typeof listBatchTasksResponse>;

/** `POST /v1/deepresearch/batches/{id}/cancel` response. */
export const cancelBatchResponse = z.looseObject({
  batch_id: z.string(),
  status: z.literal('cancelled'),
  cancelled_count: z.int().min(0),
  message: z.string().optional(),
});
export type CancelBatchResponse = z.infer<typeof cancelBatchResponse>;
