import { z } from 'zod';
import { metadata, reportedMode, researchMode, serviceTimestamp, taskActionResponse } from './common';
import { webhookUrl } from './webhook-url';
import { interaction } from './checkpoints';

/** Task lifecycle states (spec 3.1). */
export const TASK_STATUSES = ['queued', 'running', 'awaiting_input', 'paused', 'completed', 'failed', 'cancelled'] as const;
export const taskStatus = z.enum(TASK_STATUSES);
export type TaskStatus = z.infer<typeof taskStatus>;

/** States a task never leaves. */
export const TERMINAL_TASK_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];

/** Output formats: `markdown`, `pdf`, `toon`, or one JSON Schema object for structured output. */
export const outputFormats = z
  .array(z.union([z.enum(['markdown', 'pdf', 'toon']), z.record(z.string(), z.unknown())]))
  .min(1, 'must name at least one format')
  .superRefine((formats, ctx) => {
    const schemas = formats.filter((format) => typeof format === 'object');
    if (schemas.length > 1) ctx.addIssue({ code: 'custom', message: 'at most one JSON Schema object' });
    if (schemas.length > 0 && formats.some((format) => format === 'markdown' || format === 'pdf')) {
      ctx.addIssue({ code: 'custom', message: 'a JSON Schema object cannot be combined with markdown or pdf' });
    }
  });

/** A requested file: a natural-language description (max 500 characters) or `{ type, description }`. */
export const deliverableRequest = z.union([
  z.string().min(1).max(500, 'a deliverable description is at most 500 characters'),
  z.looseObject({
    type: z.string().min(1),
    description: z.string().min(1).max(500, 'a deliverable description is at most 500 characters'),
  }),
]);

/**
 * One tool's setting: on or off, or `{ enabled, max_calls }` (the JS client's `ToolConfig`: `max_calls` can
 * only lower the service's own limit, and 0 turns the tool off).
 */
export const toolSetting = z.union(
  [
    z.boolean(),
    z.strictObject({
      enabled: z.boolean().optional(),
      max_calls: z.int({ error: 'must be a whole number' }).min(0, 'must be 0 or more').optional(),
    }),
  ],
  { error: 'must be a boolean or { enabled, max_calls }' },
);
export type ToolSetting = z.infer<typeof toolSetting>;

/** True when a tool setting turns the tool on (`max_calls: 0` turns it off). */
export function toolEnabled(setting: unknown): boolean {
  if (setting === true) return true;
  if (typeof setting !== 'object' || setting === null) return false;
  const { enabled, max_calls: maxCalls } = setting as { enabled?: unknown; max_calls?: unknown };
  return enabled !== false && maxCalls !== 0;
}

/** Optional agent tools. */
export const tools = z.looseObject({
  code_execution: toolSetting.optional(),
  screenshots: toolSetting.optional(),
  browser_use: toolSetting.optional(),
  charts: toolSetting.optional(),
});

/** Human-in-the-loop checkpoints to enable; they run in this order. */
export const hitlConfig = z.looseObject({
  planning_questions: z.boolean().optional(),
  plan_review: z.boolean().optional(),
  source_review: z.boolean().optional(),
  outline_review: z.boolean().optional(),
});
export type HitlConfig = z.infer<typeof hitlConfig>;

/** An attached file (inline data or a URL). */
export const taskFile = z
  .looseObject({
    filename: z.string().min(1).optional(),
    data: z.string().min(1).optional(),
    url: z.url().optional(),
    media_type: z.string().optional(),
  })
  .refine((file) => file.data !== undefined || file.url !== undefined, 'a file needs data or url');

/** An extra MCP server offered to the agent. */
export const mcpServer = z.looseObject({ url: z.url(), name: z.string().optional() });

/** `alert_email`: an address, or `{ email, custom_url }` where `custom_url` contains `{id}`. */
export const alertEmail = z.union([
  z.email(),
  z.looseObject({
    email: z.email(),
    custom_url: z.string().includes('{id}', { message: 'must contain {id}' }).optional(),
  }),
]);

const taskRequestFields = {
  query: z.string().trim().min(1, 'must not be empty').max(25_000, 'is at most 25,000 characters').optional(),
  input: z.string().trim().min(1).max(25_000, 'is at most 25,000 characters').optional(),
  mode: researchMode.optional(),
  model: researchMode.optional(),
  research_strategy: z.string().max(15_000).optional(),
  strategy: z.string().max(15_000).optional(),
  report_format: z.string().max(15_000).optional(),
  urls: z
    .array(z.url({ error: 'must be a URL' }))
    .max(10, 'at most 10 URLs')
    .optional(),
  files: z.array(taskFile).max(10, 'at most 10 files').optional(),
  output_formats: outputFormats.optional(),
  metadata: metadata.optional(),
  mcp_servers: z.array(mcpServer).max(5, 'at most 5 MCP servers').optional(),
  code_execution: z.boolean().optional(),
  tools: tools.optional(),
  previous_reports: z.array(z.string().min(1)).max(3, 'at most 3 previous reports').optional(),
  webhook_url: webhookUrl.optional(),
  alert_email: alertEmail.optional(),
  deliverables: z.array(deliverableRequest).max(10, 'at most 10 deliverables').optional(),
  hitl: hitlConfig.optional(),
  search: z.record(z.string(), z.unknown()).optional(),
  workflow_id: z.string().min(1).optional(),
  workflow_params: z.record(z.string(), z.unknown()).optional(),
  workflow_version: z.int().positive().optional(),
  brand_collection_id: z.string().min(1, 'must not be empty').optional(),
};

type AliasPair = readonly [current: string, deprecated: string];
const ALIASES: readonly AliasPair[] = [
  ['query', 'input'],
  ['mode', 'model'],
  ['research_strategy', 'strategy'],
];

/**
 * `POST /v1/deepresearch/tasks` body (spec 2.4). Deprecated aliases (`input`, `model`, `strategy`,
 * `code_execution`) are accepted and normalised to the current fields; the parsed value never has them.
 */
export const createTaskRequest = z
  .strictObject(taskRequestFields)
  .superRefine((value, ctx) => {
    const record = value as Record<string, unknown>;
    for (const [current, deprecated] of ALIASES) {
      if (record[current] !== undefined && record[deprecated] !== undefined && record[current] !== record[deprecated]) {
        ctx.addIssue({ code: 'custom', path: [deprecated], message: `deprecated alias of ${current}; give one of them, not two different values` });
      }
    }
    if (value.code_execution !== undefined && value.tools?.code_execution !== undefined && value.code_execution !== value.tools.code_execution) {
      ctx.addIssue({
        code: 'custom',
        path: ['code_execution'],
        message: 'deprecated alias of tools.code_execution; give one of them, not two different values',
      });
    }
    if (value.query === undefined && value.input === undefined && value.workflow_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['query'], message: 'is required (unless workflow_id is given)' });
    }
    const strategyLength = (value.research_strategy ?? value.strategy ?? '').length + (value.report_format ?? '').length;
    if (strategyLength > 15_000) {
      ctx.addIssue({
        code: 'custom',
        path: ['report_format'],
        message: `research_strategy plus report_format is ${strategyLength} characters; at most 15,000 combined`,
      });
    }
    if (value.workflow_params !== undefined && value.workflow_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['workflow_params'], message: 'needs workflow_id' });
    }
  })
  .transform(({ input, model, strategy, code_execution, ...rest }) => {
    const normalised = { ...rest };
    if (normalised.query === undefined && input !== undefined) normalised.query = input;
    if (normalised.mode === undefined && model !== undefined) normalised.mode = model;
    if (normalised.research_strategy === undefined && strategy !== undefined) normalised.research_strategy = strategy;
    if (code_execution !== undefined && normalised.tools?.code_execution === undefined) {
      normalised.tools = { ...normalised.tools, code_execution };
    }
    return normalised;
  });
/** What a caller may send (aliases allowed). */
export type CreateTaskRequest = z.input<typeof createTaskRequest>;
/** The request after validation and alias normalisation. */
export type NormalisedTaskRequest = z.output<typeof createTaskRequest>;

/** `POST /v1/deepresearch/tasks` response (spec 2.5). */
export const createTaskResponse = z.looseObject({
  deepresearch_id: z.string().min(1),
  status: z.enum(['queued', 'running']),
  mode: reportedMode,
  created_at: z.string(),
  metadata: metadata.optional(),
  public: z.boolean().optional(),
  webhook_secret: z.string().optional(),
  message: z.string().optional(),
});
export type CreateTaskResponse = z.infer<typeof createTaskResponse>;

/**
 * A generated file of a completed task (both clients' `DeliverableResult`): `request` is the description it
 * was asked for, `url` a token-signed download link, `created_at` a Unix timestamp.
 */
export const deliverableFile = z.looseObject({
  id: z.string().min(1),
  request: z.string(),
  type: z.string().min(1),
  status: z.enum(['completed', 'failed']),
  title: z.string(),
  description: z.string().optional(),
  url: z.string(),
  s3_key: z.string().optional(),
  row_count: z.int().min(0).optional(),
  column_count: z.int().min(0).optional(),
  error: z.string().optional(),
  created_at: z.number(),
});
export type DeliverableFile = z.infer<typeof deliverableFile>;

/**
 * A chart, generated image or screenshot of a completed task (the clients' `ImageMetadata`); `image_id` is
 * the asset id, and the emulator repeats it as `id` (the deliverables' name for it).
 */
export const taskImage = z.looseObject({
  image_id: z.string().min(1),
  id: z.string().min(1).optional(),
  image_type: z.string().min(1),
  title: z.string(),
  description: z.string().optional(),
  image_url: z.string().min(1),
  created_at: z.number(),
  chart_type: z.string().optional(),
});
export type TaskImage = z.infer<typeof taskImage>;

/** A cited source. */
export const taskSource = z.looseObject({ title: z.string().optional(), url: z.string().optional() });

/** What a task cost, itemised in USD (the clients' `DeepResearchCostBreakdown`). */
export const costBreakdown = z.looseObject({
  task: z.number().nonnegative(),
  screenshots: z.number().nonnegative().optional(),
  code_execution: z.number().nonnegative().optional(),
  deliverables: z.number().nonnegative().optional(),
});
export type CostBreakdown = z.infer<typeof costBreakdown>;

/** A checkpoint already answered (or continued without an answer), as `hitl_history` lists it. */
export const hitlHistoryEntry = z.looseObject({
  interaction_id: z.string().min(1),
  type: z.string().min(1),
  created_at: z.number(),
  responded_at: z.number().optional(),
  auto_continued: z.boolean(),
  response: z.record(z.string(), z.unknown()).optional(),
});
export type HitlHistoryEntry = z.infer<typeof hitlHistoryEntry>;

/** `GET /v1/deepresearch/tasks/{id}/status` response (spec 2.6). */
export const task = z.looseObject({
  deepresearch_id: z.string(),
  status: taskStatus,
  query: z.string(),
  mode: reportedMode,
  created_at: z.string(),
  output_formats: z.array(z.unknown()).optional(),
  public: z.boolean().optional(),
  batch_id: z.string().optional(),
  batch_task_id: z.string().optional(),
  progress: z.looseObject({ current_step: z.int().min(0), total_steps: z.int().min(0) }).optional(),
  output_type: z.enum(['markdown', 'json', 'toon']).optional(),
  output: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  sources: z.array(taskSource).optional(),
  cost: z.number().optional(),
  cost_breakdown: costBreakdown.optional(),
  tools: tools.optional(),
  completed_at: z.string().optional(),
  pdf_url: z.string().optional(),
  images: z.array(taskImage).optional(),
  deliverables: z.array(deliverableFile).optional(),
  messages: z.array(z.unknown()).optional(),
  error: z.string().optional(),
  hitl_config: z.record(z.string(), z.boolean()).optional(),
  interaction: interaction.optional(),
  hitl_history: z.array(hitlHistoryEntry).optional(),
  metadata: metadata.optional(),
});
export type Task = z.infer<typeof task>;

/** `POST .../update` body: a follow-up instruction. */
export const updateTaskRequest = z.strictObject({ instruction: z.string().trim().min(1, 'must not be empty') });
export const updateTaskResponse = taskActionResponse;

/** `POST .../public` body and response. */
export const setTaskPublicRequest = z.strictObject({ public: z.boolean() });
export const setTaskPublicResponse = taskActionResponse.extend({ public: z.boolean() });
export type SetTaskPublicResponse = z.infer<typeof setTaskPublicResponse>;

/**
 * One entry of `GET /v1/deepresearch/list` (the clients' `DeepResearchTaskListItem`). It carries no
 * metadata; `created_at` comes as a number (JS client) or ISO text (Python client) and is read as ISO text.
 */
export const taskSummary = z.looseObject({
  deepresearch_id: z.string().min(1),
  query: z.string(),
  input: z.string().optional(),
  title: z.string().optional(),
  status: taskStatus,
  created_at: serviceTimestamp,
  public: z.boolean().optional(),
});
export type TaskSummary = z.infer<typeof taskSummary>;

/** `GET /v1/deepresearch/list?limit=N` response: a bare array, most recent first. */
export const listTasksResponse = z.array(taskSummary);
