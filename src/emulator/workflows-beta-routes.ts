import { z } from 'zod';
import {
  createWorkflowRequest,
  deleteWorkflowResponse,
  getWorkflowResponse,
  listWorkflowsQuery,
  listWorkflowsResponse,
  listWorkflowVersionsResponse,
  previewWorkflowRequest,
  previewWorkflowResponse,
  updateWorkflowRequest,
  type WorkflowRecord,
} from '../api/schemas';
import type { Account, EmulatorRoute } from './types';
import { queryObject } from './research/batch-views';
import { describeIssues, shapeResponse } from './validation';
import { currentVersion, pickVersion, resolveDefinition, type WorkflowDefinition, type WorkflowStore, type WorkflowVersionDefinition } from './workflows-beta';
import { definitionOf, wireVariable, workflowError } from './workflows-beta-template';
import { toolSetOf } from './research/task-factory';

const getQuery = z.strictObject({ version: z.int().positive().optional() });

/** Parses with `schema` or throws the workflow-form 400 `invalid_request`. */
function parseWorkflowRequest<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw workflowError(400, 'invalid_request', describeIssues(result.error.issues, prefix));
}

/** The query as the schemas expect it: numbers and booleans converted where they are clean. */
function workflowQuery(query: URLSearchParams): Record<string, unknown> {
  const values = queryObject(query);
  if (typeof values.version === 'string' && /^\d+$/.test(values.version)) values.version = Number(values.version);
  if (values.expand === 'true' || values.expand === 'false') values.expand = values.expand === 'true';
  return values;
}

/**
 * A workflow record (the JS client's `Workflow`) for one version, the current one by default; `withTemplate`
 * adds the template (`prompt`, `strategy`, `report_format`), as get does and a list does with `expand`.
 */
export function workflowRecordOf(definition: WorkflowDefinition, version?: WorkflowVersionDefinition, withTemplate = true): WorkflowRecord {
  const shown = version ?? currentVersion(definition);
  const first = definition.versions[0] ?? shown;
  const { template } = shown;
  return {
    slug: definition.slug,
    version: shown.version,
    vertical: definition.vertical ?? null,
    tags: [...definition.tags],
    title: definition.title,
    subtitle: definition.subtitle ?? null,
    description: definition.description,
    popular: false,
    recommended_mode: shown.recommended_mode,
    estimated_time: shown.estimated_time,
    is_valyu: definition.scope === 'curated',
    owner_org_id: definition.owner ?? null,
    variables: shown.variables.map(wireVariable),
    ...(template.deliverables ? { deliverables: template.deliverables.map((item) => ({ ...item })) } : {}),
    created_at: first.created_at,
    updated_at: definition.updated_at ?? shown.created_at,
    ...(withTemplate ? { prompt: template.input, strategy: template.research_strategy ?? '', report_format: template.report_format ?? '' } : {}),
    ...(template.tools ? { tools: { ...template.tools } } : {}),
    changelog: shown.changelog,
  };
}

/** A version built from a create or update body; `{{key}}` in the prompt marks a variable. */
function versionFrom(input: z.output<typeof createWorkflowRequest>['version'], number: number, now: string): WorkflowVersionDefinition {
  const tools = toolSetOf(input.tools);
  return {
    version: number,
    recommended_mode: input.recommended_mode ?? 'standard',
    estimated_time: input.estimated_time ?? '',
    changelog: input.changelog ?? (number === 1 ? 'First version.' : ''),
    created_at: now,
    variables: (input.variables ?? []).map(definitionOf),
    template: {
      input: input.prompt,
      ...(input.strategy ? { research_strategy: input.strategy } : {}),
      ...(input.report_format ? { report_format: input.report_format } : {}),
      ...(input.deliverables ? { deliverables: input.deliverables.map((item) => ({ type: item.type, description: item.description ?? item.type })) } : {}),
      tools,
      output_formats: ['markdown'],
    },
  };
}

function matches(definition: WorkflowDefinition, query: z.output<typeof listWorkflowsQuery>, account: Account): boolean {
  const scope = query.scope ?? 'all';
  if (scope === 'valyu' && definition.scope !== 'curated') return false;
  if (scope === 'org' && definition.owner !== account.organization) return false;
  if (query.vertical !== undefined && definition.vertical !== query.vertical) return false;
  const tags =
    query.tags
      ?.split(',')
      .map((tag) => tag.trim())
      .filter(Boolean) ?? [];
  if (tags.length > 0 && !tags.some((tag) => definition.tags.includes(tag))) return false;
  const text = query.q?.toLowerCase();
  return text === undefined || [definition.slug, definition.title, definition.description].some((field) => field.toLowerCase().includes(text));
}

/** The workflow routes (beta); all need the `inference` permission. Errors use `{ error, message }`. */
export function workflowRoutes(store: WorkflowStore, now: () => number): EmulatorRoute[] {
  const record = (definition: WorkflowDefinition) => shapeResponse(getWorkflowResponse, workflowRecordOf(definition));
  return [
    {
      method: 'GET',
      pattern: '/v1/workflows',
      name: 'workflows.list',
      requiresInference: true,
      handle: ({ account, query }) => {
        const filters = parseWorkflowRequest(listWorkflowsQuery, workflowQuery(query), 'query');
        const visible = store.list(account);
        const found = visible.filter((definition) => matches(definition, filters, account));
        const workflows = found.slice(0, filters.limit ?? 50).map((definition) => workflowRecordOf(definition, undefined, filters.expand === true));
        const verticals = [...new Set(visible.flatMap((definition) => (definition.vertical ? [definition.vertical] : [])))].sort();
        return { status: 200, json: shapeResponse(listWorkflowsResponse, { workflows, total: found.length, next_cursor: null, verticals }) };
      },
    },
    {
      method: 'POST',
      pattern: '/v1/workflows',
      name: 'workflows.create',
      requiresInference: true,
      handle: ({ account, body }) => {
        const request = parseWorkflowRequest(createWorkflowRequest, body);
        const at = new Date(now()).toISOString();
        const definition = store.create(account, {
          slug: request.slug,
          title: request.title,
          subtitle: request.subtitle,
          description: request.description ?? '',
          vertical: request.vertical,
          tags: request.tags ?? [],
          icon: request.icon,
          scope: 'organization',
          owner: account.organization,
          versions: [versionFrom(request.version, 1, at)],
          updated_at: at,
        });
        return { status: 201, json: record(definition) };
      },
    },
    {
      method: 'GET',
      pattern: '/v1/workflows/:slug',
      name: 'workflows.get',
      requiresInference: true,
      handle: ({ account, params, query }) => {
        const { version } = parseWorkflowRequest(getQuery, workflowQuery(query), 'query');
        const definition = store.get(account, params.slug ?? '');
        return { status: 200, json: shapeResponse(getWorkflowResponse, workflowRecordOf(definition, pickVersion(definition, version))) };
      },
    },
    {
      method: 'PATCH',
      pattern: '/v1/workflows/:slug',
      name: 'workflows.update',
      requiresInference: true,
      handle: ({ account, params, body }) => {
        const definition = store.editable(account, params.slug ?? '');
        const request = parseWorkflowRequest(updateWorkflowRequest, body);
        const at = new Date(now()).toISOString();
        if (request.title !== undefined) definition.title = request.title;
        if (request.subtitle !== undefined) definition.subtitle = request.subtitle;
        if (request.description !== undefined) definition.description = request.description;
        if (request.vertical !== undefined) definition.vertical = request.vertical;
        if (request.tags !== undefined) definition.tags = [...request.tags];
        if (request.icon !== undefined) definition.icon = request.icon;
        if (request.version) {
          const number = Math.max(...definition.versions.map((item) => item.version)) + 1;
          const previous = currentVersion(definition).version;
          definition.versions.push(versionFrom(request.version, number, at));
          // Versions are append-only; `set_current: false` publishes one without making it current.
          definition.current = request.set_current === false ? previous : number;
        }
        definition.updated_at = at;
        return { status: 200, json: record(definition) };
      },
    },
    {
      method: 'GET',
      pattern: '/v1/workflows/:slug/versions',
      name: 'workflows.versions',
      requiresInference: true,
      handle: ({ account, params }) => {
        const definition = store.get(account, params.slug ?? '');
        const current = currentVersion(definition).version;
        const versions = definition.versions.map(({ version, recommended_mode, estimated_time, changelog, created_at }) => ({
          version,
          recommended_mode,
          estimated_time,
          changelog,
          created_at,
          is_current: version === current,
        }));
        return { status: 200, json: shapeResponse(listWorkflowVersionsResponse, { slug: definition.slug, versions }) };
      },
    },
    {
      method: 'POST',
      pattern: '/v1/workflows/:slug/preview',
      name: 'workflows.preview',
      requiresInference: true,
      handle: ({ account, params, body }) => {
        const definition = store.get(account, params.slug ?? '');
        const request = parseWorkflowRequest(previewWorkflowRequest, body ?? {});
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
      method: 'DELETE',
      pattern: '/v1/workflows/:slug',
      name: 'workflows.delete',
      requiresInference: true,
      handle: ({ account, params }) => ({ status: 200, json: shapeResponse(deleteWorkflowResponse, store.delete(account, params.slug ?? '')) }),
    },
  ];
}
