import { z } from 'zod';
import { reportedMode, researchMode } from './common';
import { outputFormats, tools } from './tasks';
import { isRecord } from '../../shared/guards';

/** Variable kinds the JS client names. */
export const WORKFLOW_VARIABLE_TYPES = ['text', 'textarea', 'number', 'date', 'enum'] as const;

/** A typed template variable of a workflow, as the service shows it (the JS client's `WorkflowVariable`). */
export const workflowVariable = z.looseObject({
  key: z.string().min(1),
  label: z.string().optional(),
  type: z.enum(WORKFLOW_VARIABLE_TYPES).optional(),
  required: z.boolean().optional(),
  placeholder: z.string().optional(),
  help: z.string().optional(),
  examples: z.array(z.string()).optional(),
  validation: z
    .looseObject({
      min_length: z.int().min(0).optional(),
      max_length: z.int().min(0).optional(),
      pattern: z.string().optional(),
      enum: z.array(z.string()).optional(),
    })
    .optional(),
});
export type WorkflowVariable = z.infer<typeof workflowVariable>;

/** A deliverable a workflow produces. */
export const workflowDeliverable = z.looseObject({ type: z.string().min(1), description: z.string().optional() });

/**
 * A workflow record as list, get, create and update return it (the JS client's `Workflow`): metadata, and
 * with get (or `expand`) the template of the version shown: `prompt`, `strategy`, `report_format`.
 */
export const workflowRecord = z.looseObject({
  slug: z.string().min(1),
  version: z.int().positive().optional(),
  vertical: z.string().nullable().optional(),
  tags: z.array(z.string()).optional(),
  title: z.string().optional(),
  subtitle: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  popular: z.boolean().optional(),
  recommended_mode: reportedMode.optional(),
  estimated_time: z.string().nullable().optional(),
  is_valyu: z.boolean().optional(),
  owner_org_id: z.string().nullable().optional(),
  variables: z.array(workflowVariable).optional(),
  deliverables: z.array(workflowDeliverable).optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  prompt: z.string().optional(),
  strategy: z.string().optional(),
  report_format: z.string().optional(),
  tools: tools.optional(),
  changelog: z.string().nullable().optional(),
});
export type WorkflowRecord = z.infer<typeof workflowRecord>;

/** `GET /v1/workflows` response. */
export const listWorkflowsResponse = z.looseObject({
  workflows: z.array(workflowRecord),
  total: z.int().min(0).optional(),
  next_cursor: z.string().nullable().optional(),
  verticals: z.array(z.string()).optional(),
});
export type ListWorkflowsResponse = z.infer<typeof listWorkflowsResponse>;

/** Query of `GET /v1/workflows` (the JS client's `WorkflowsListOptions`; `tags` go comma-separated). */
export const listWorkflowsQuery = z.strictObject({
  scope: z.enum(['valyu', 'org', 'all']).optional(),
  vertical: z.string().min(1).optional(),
  q: z.string().min(1).optional(),
  tags: z.string().min(1).optional(),
  limit: z.int().min(1).max(100).optional(),
  expand: z.boolean().optional(),
});
export type ListWorkflowsQuery = z.input<typeof listWorkflowsQuery>;

/** `GET /v1/workflows/{slug}`, `POST /v1/workflows` and `PATCH /v1/workflows/{slug}` response: the record itself; `{ workflow }` is also read. */
export const getWorkflowResponse = z.preprocess((body) => (isRecord(body) && isRecord(body.workflow) ? body.workflow : body), workflowRecord);

/** A template body: the first version of a new workflow, or a new version of one (which needs a changelog). */
export const workflowVersionInput = z.strictObject({
  prompt: z.string().trim().min(1, 'must not be empty'),
  strategy: z.string(),
  report_format: z.string(),
  variables: z.array(workflowVariable).optional(),
  deliverables: z.array(workflowDeliverable).optional(),
  tools: tools.optional(),
  recommended_mode: researchMode.optional(),
  estimated_time: z.string().optional(),
  changelog: z.string().optional(),
});
export type WorkflowVersionInput = z.input<typeof workflowVersionInput>;

const workflowMetadataFields = {
  subtitle: z.string().optional(),
  description: z.string().optional(),
  vertical: z.string().optional(),
  tags: z.array(z.string().min(1)).optional(),
  icon: z.string().optional(),
};

/** `POST /v1/workflows` body. */
export const createWorkflowRequest = z.strictObject({
  slug: z.string().regex(/^[a-z0-9][a-z0-9-]{0,79}$/, 'must be lowercase letters, digits and hyphens (at most 80)'),
  title: z.string().trim().min(1, 'must not be empty'),
  version: workflowVersionInput,
  ...workflowMetadataFields,
});
export type CreateWorkflowRequest = z.input<typeof createWorkflowRequest>;

/** `PATCH /v1/workflows/{slug}` body: metadata and/or a new version (versions are append-only). */
export const updateWorkflowRequest = z.strictObject({
  title: z.string().trim().min(1, 'must not be empty').optional(),
  version: workflowVersionInput
    .refine((version) => version.changelog !== undefined && version.changelog.trim() !== '', {
      message: 'a new version needs a changelog',
      path: ['changelog'],
    })
    .optional(),
  set_current: z.boolean().optional(),
  ...workflowMetadataFields,
});
export type UpdateWorkflowRequest = z.input<typeof updateWorkflowRequest>;

/** One immutable version (spec 2.8). */
export const workflowVersion = z.looseObject({
  version: z.int().positive(),
  recommended_mode: reportedMode.optional(),
  estimated_time: z.string().nullable().optional(),
  changelog: z.string().nullable().optional(),
  created_at: z.string().optional(),
  is_current: z.boolean().optional(),
});
export type WorkflowVersion = z.infer<typeof workflowVersion>;

/** `GET /v1/workflows/{slug}/versions` response. */
export const listWorkflowVersionsResponse = z.looseObject({ slug: z.string(), versions: z.array(workflowVersion) });
export type ListWorkflowVersionsResponse = z.infer<typeof listWorkflowVersionsResponse>;

/** `POST /v1/workflows/{slug}/preview` body; both fields are optional (the JS client sends `{}` without them). */
export const previewWorkflowRequest = z.strictObject({
  workflow_params: z.record(z.string(), z.unknown()).optional(),
  workflow_version: z.int().positive().optional(),
});
export type PreviewWorkflowRequest = z.input<typeof previewWorkflowRequest>;

/** The configuration a workflow template resolves to. */
export const resolvedWorkflow = z.looseObject({
  input: z.string(),
  research_strategy: z.string().optional(),
  report_format: z.string().optional(),
  deliverables: z.array(z.looseObject({ type: z.string(), description: z.string() })).optional(),
  mode: reportedMode,
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
