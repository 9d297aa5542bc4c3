import { z } from 'zod';
import { researchMode } from './common';
import { outputFormats, tools } from './tasks';
import { isRecord } from '../../shared/guards';

/** A typed template variable of a workflow. */
export const workflowVariable = z.looseObject({
  name: z.string().min(1),
  type: z.enum(['string', 'number', 'integer', 'boolean', 'enum', 'array', 'date']),
  required: z.boolean().optional(),
  description: z.string().optional(),
  default: z.unknown().optional(),
  options: z.array(z.string()).optional(),
});
export type WorkflowVariable = z.infer<typeof workflowVariable>;

/** A workflow: a prompt template with typed variables and research settings, immutably versioned. */
export const workflowRecord = z.looseObject({
  slug: z.string().min(1),
  name: z.string().optional(),
  description: z.string().optional(),
  scope: z.enum(['curated', 'organization']).optional(),
  version: z.int().positive(),
  recommended_mode: researchMode.optional(),
  variables: z.array(workflowVariable).optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
});
export type WorkflowRecord = z.infer<typeof workflowRecord>;

/** `GET /v1/workflows` response. */
export const listWorkflowsResponse = z.looseObject({ success: z.boolean().optional(), workflows: z.array(workflowRecord) });

/** `GET /v1/workflows/{slug}` response: the record itself or `{ workflow }` (unwrapped first, so errors name the field). */
export const getWorkflowResponse = z.preprocess(
  (body) => (isRecord(body) && isRecord(body.workflow) ? body.workflow : body),
  workflowRecord,
);


/** One immutable version (spec 2.8). */
export const workflowVersion = z.looseObject({
  version: z.int().positive(),
  recommended_mode: researchMode,
  estimated_time: z.string(),
  changelog: z.string(),
  created_at: z.string(),
  is_current: z.boolean(),
});
export type WorkflowVersion = z.infer<typeof workflowVersion>;

/** `GET /v1/workflows/{slug}/versions` response. */
export const listWorkflowVersionsResponse = z.looseObject({ slug: z.string(), versions: z.array(workflowVersion) });
export type ListWorkflowVersionsResponse = z.infer<typeof listWorkflowVersionsResponse>;

/** `POST /v1/workflows/{slug}/preview` body. */
export const previewWorkflowRequest = z.strictObject({
  workflow_params: z.record(z.string(), z.unknown()),
  workflow_version: z.int().positive().optional(),
});
export type PreviewWorkflowRequest = z.input<typeof previewWorkflowRequest>;

/** The configuration a workflow template resolves to. */
export const resolvedWorkflow = z.looseObject({
  input: z.string(),
  research_strategy: z.string().optional(),
  report_format: z.string().optional(),
  deliverables: z.array(z.looseObject({ type: z.string(), description: z.string() })).optional(),
  mode: researchMode,
  tools: tools.optional(),
  output_formats: outputFormats.optional(),
});
export type ResolvedWorkflow = z.infer<typeof resolvedWorkflow>;

/** `POST /v1/workflows/{slug}/preview` response. */
export const previewWorkflowResponse = z.looseObject({
  workflow: z.looseObject({ slug: z.string(), version: z.int().positive() }),
  resolved: resolvedWorkflow,
  estimated_credits: z.number().nullable(),
});
export type PreviewWorkflowResponse = z.infer<typeof previewWorkflowResponse>;

/** `DELETE /v1/workflows/{slug}` response. */
export const deleteWorkflowResponse = z.looseObject({ slug: z.string(), deleted_at: z.string() });
export type DeleteWorkflowResponse = z.infer<typeof deleteWorkflowResponse>;
