import { z } from 'zod';
import {
  deleteWorkflowResponse, getWorkflowResponse, listWorkflowsResponse, listWorkflowVersionsResponse,
  previewWorkflowRequest, previewWorkflowResponse, type WorkflowRecord,
} from '../api/schemas';
import type { EmulatorRoute } from './types';
import { describeIssues, shapeResponse } from './validation';
import { currentVersion, resolveDefinition, type WorkflowDefinition, type WorkflowStore } from './workflows-beta';
import { workflowError } from './workflows-beta-template';

const listQuery = z.strictObject({ scope: z.enum(['curated', 'organization']).optional() });

/** Parses with `schema` or throws the workflow-form 400 `invalid_request`. */
function parseWorkflowRequest<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw workflowError(400, 'invalid_request', describeIssues(result.error.issues, prefix));
}

/** The record list and get return: the workflow with its current version's settings and variables. */
export function workflowRecordOf(definition: WorkflowDefinition): WorkflowRecord {
  const current = currentVersion(definition);
  const first = definition.versions[0] ?? current;
  return {
    slug: definition.slug,
    name: definition.name,
    description: definition.description,
    scope: definition.scope,
    version: current.version,
    recommended_mode: current.recommended_mode,
    estimated_time: current.estimated_time,
    variables: structuredClone(current.variables),
    created_at: first.created_at,
    updated_at: current.created_at,
  };
}

/** The workflow routes (beta); all need the `inference` permission. Errors use `{ error, message }`. */
export function workflowRoutes(store: WorkflowStore): EmulatorRoute[] {
  return [
    {
      method: 'GET', pattern: '/v1/workflows', name: 'workflows.list', requiresInference: true,
      handle: ({ account, query }) => {
        const { scope } = parseWorkflowRequest(listQuery, Object.fromEntries(query), 'query');
        const workflows = store.list(account).filter((definition) => !scope || definition.scope === scope).map(workflowRecordOf);
        return { status: 200, json: shapeResponse(listWorkflowsResponse, { success: true, workflows }) };
      },
    },
    {
      method: 'GET', pattern: '/v1/workflows/:slug', name: 'workflows.get', requiresInference: true,
      handle: ({ account, params }) => ({
        status: 200,
        json: shapeResponse(getWorkflowResponse, { success: true, workflow: workflowRecordOf(store.get(account, params.slug ?? '')) }),
      }),
    },
    {
      method: 'GET', pattern: '/v1/workflows/:slug/versions', name: 'workflows.versions', requiresInference: true,
      handle: ({ account, params }) => {
        const definition = store.get(account, params.slug ?? '');
        const latest = currentVersion(definition).version;
        const versions = definition.versions.map(({ version, recommended_mode, estimated_time, changelog, created_at }) => ({
          version, recommended_mode, estimated_time, changelog, created_at, is_current: version === latest,
        }));
        return { status: 200, json: shapeResponse(listWorkflowVersionsResponse, { slug: definition.slug, versions }) };
      },
    },
    {
      method: 'POST', pattern: '/v1/workflows/:slug/preview', name: 'workflows.preview', requiresInference: true,
      handle: ({ account, params, body }) => {
        const definition = store.get(account, params.slug ?? '');
        const request = parseWorkflowRequest(previewWorkflowRequest, body);
        const resolution = resolveDefinition(definition, request.workflow_params, request.workflow_version);
        return {
          status: 200,
          json: shapeResponse(previewWorkflowResponse, {
            workflow: { slug: resolution.slug, version: resolution.version },
            resolved: resolution.resolved,
            estimated_credits: resolution.estimatedCredits,
          }),
        };
      },
    },
    {
      method: 'DELETE', pattern: '/v1/workflows/:slug', name: 'workflows.delete', requiresInference: true,
      handle: ({ account, params }) => ({ status: 200, json: shapeResponse(deleteWorkflowResponse, store.delete(account, params.slug ?? '')) }),
    },
  ];
}
