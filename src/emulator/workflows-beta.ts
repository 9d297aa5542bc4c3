import { MODES, type ResolvedWorkflow } from '../api/schemas';
import type { Account } from './types';
import { CURATED_WORKFLOWS, seedOrganizationWorkflows, type WorkflowDefinition, type WorkflowVersionDefinition } from './workflows-beta-definitions';
import { checkWorkflowParams, renderTemplate, workflowError } from './workflows-beta-template';

export type { WorkflowDefinition, WorkflowVersionDefinition } from './workflows-beta-definitions';

/** A resolved workflow: the version it came from, its configuration and its estimated credits. */
export interface WorkflowResolution {
  slug: string;
  version: number;
  resolved: ResolvedWorkflow;
  estimatedCredits: number;
}

/** The version marked `is_current`: the newest, unless an update published one without making it current. */
export function currentVersion(definition: WorkflowDefinition): WorkflowVersionDefinition {
  const current = definition.versions.find((version) => version.version === definition.current) ?? definition.versions[definition.versions.length - 1];
  if (!current) throw new Error(`workflow ${definition.slug} has no versions`);
  return current;
}

/** Curated workflows plus each organisation's own, with soft deletion. One per emulator. */
export class WorkflowStore {
  private readonly byOrganization = new Map<string, Map<string, WorkflowDefinition>>();

  constructor(private readonly now: () => number) {}

  private own(account: Account): Map<string, WorkflowDefinition> {
    let workflows = this.byOrganization.get(account.organization);
    if (!workflows) {
      workflows = new Map(seedOrganizationWorkflows().map((definition) => [definition.slug, definition]));
      this.byOrganization.set(account.organization, workflows);
    }
    return workflows;
  }

  /** Curated and the organisation's workflows that are not deleted. */
  list(account: Account): WorkflowDefinition[] {
    return [...CURATED_WORKFLOWS, ...[...this.own(account).values()].filter((definition) => !definition.deleted_at)];
  }

  /** A visible workflow by slug, or a 404 `workflow_not_found`. */
  get(account: Account, slug: string): WorkflowDefinition {
    const found = CURATED_WORKFLOWS.find((definition) => definition.slug === slug) ?? this.own(account).get(slug);
    if (!found || found.deleted_at) throw workflowError(404, 'workflow_not_found', `No workflow matches the slug "${slug}"`);
    return found;
  }

  /** Adds an organisation workflow (409 `workflow_exists` when the slug is taken, curated slugs included). */
  create(account: Account, definition: WorkflowDefinition): WorkflowDefinition {
    const own = this.own(account);
    const taken = CURATED_WORKFLOWS.some((item) => item.slug === definition.slug) || (own.get(definition.slug) && !own.get(definition.slug)?.deleted_at);
    if (taken) throw workflowError(409, 'workflow_exists', `A workflow with the slug "${definition.slug}" already exists`);
    own.set(definition.slug, definition);
    return definition;
  }

  /** An organisation workflow to change; curated ones are 403 `cannot_edit_svc_workflow`. */
  editable(account: Account, slug: string): WorkflowDefinition {
    const definition = this.get(account, slug);
    if (definition.scope === 'curated') {
      throw workflowError(403, 'cannot_edit_svc_workflow', `Workflow "${slug}" is curated and read-only`);
    }
    return definition;
  }

  /** Soft-deletes an organisation workflow; curated ones are 403 `cannot_edit_svc_workflow`. */
  delete(account: Account, slug: string): { slug: string; deleted_at: string } {
    const definition = this.get(account, slug);
    if (definition.scope === 'curated') {
      throw workflowError(403, 'cannot_edit_svc_workflow', `Workflow "${slug}" is curated and read-only; it cannot be deleted`);
    }
    definition.deleted_at = new Date(this.now()).toISOString();
    return { slug, deleted_at: definition.deleted_at };
  }
}

/** Picks the pinned version (404 `workflow_version_not_found` when absent) or the current one. */
export function pickVersion(definition: WorkflowDefinition, version?: number): WorkflowVersionDefinition {
  if (version === undefined) return currentVersion(definition);
  const found = definition.versions.find((candidate) => candidate.version === version);
  if (!found) {
    throw workflowError(
      404,
      'workflow_version_not_found',
      `Workflow "${definition.slug}" has no version ${version} (versions: ${definition.versions.map((item) => item.version).join(', ')})`,
    );
  }
  return found;
}

/**
 * Resolves a workflow version's template with checked parameters. `params` undefined (a preview sent
 * without `workflow_params`) shows the template itself: defaults fill in, and the required variables
 * stay as `{{name}}` placeholders instead of failing; given parameters are checked in full.
 */
export function resolveDefinition(definition: WorkflowDefinition, params?: Readonly<Record<string, unknown>>, version?: number): WorkflowResolution {
  const chosen = pickVersion(definition, version);
  const values = checkWorkflowParams(definition.slug, chosen.variables, params ?? {}, { allowMissing: params === undefined });
  const keep = new Set(chosen.variables.filter((variable) => variable.required && values[variable.name] === undefined).map((variable) => variable.name));
  const render = (text: string): string => renderTemplate(text, values, keep);
  const { template } = chosen;
  const resolved: ResolvedWorkflow = {
    input: render(template.input),
    ...(template.research_strategy ? { research_strategy: render(template.research_strategy) } : {}),
    ...(template.report_format ? { report_format: render(template.report_format) } : {}),
    ...(template.deliverables ? { deliverables: template.deliverables.map((item) => ({ type: item.type, description: render(item.description) })) } : {}),
    mode: chosen.recommended_mode,
    ...(template.tools ? { tools: { ...template.tools } } : {}),
    ...(template.output_formats ? { output_formats: structuredClone(template.output_formats) } : {}),
  };
  // Credits are 1:1 with USD; a run costs its mode's price (tool surcharges are added at task creation).
  return { slug: definition.slug, version: chosen.version, resolved, estimatedCredits: MODES[resolved.mode].priceUsd };
}

// The store of the emulator each account belongs to, so the research part can resolve workflows from
// an account alone. Accounts are per emulator instance, so emulators in one process stay apart.
const storesByAccount = new WeakMap<Account, WorkflowStore>();

/** Binds accounts to their emulator's workflow store (called once by the server). */
export function registerWorkflowStore(accounts: readonly Account[], store: WorkflowStore): void {
  for (const account of accounts) storesByAccount.set(account, store);
}

/** The workflow store of an account; an account no server registered gets a store of its own. */
export function workflowStoreFor(account: Account): WorkflowStore {
  let store = storesByAccount.get(account);
  if (!store) {
    store = new WorkflowStore(() => Date.now());
    storesByAccount.set(account, store);
  }
  return store;
}

/**
 * Resolves `workflow_id` + `workflow_params` (+ optional `workflow_version`) for task creation.
 * Throws an `EmulatorHttpError` in the workflow error form: 404 `workflow_not_found`,
 * 404 `workflow_version_not_found`, 400 `invalid_workflow_params` naming each bad variable.
 */
export function resolveWorkflowForTask(
  account: Account,
  workflowId: string,
  params: Readonly<Record<string, unknown>> = {},
  version?: number,
): WorkflowResolution {
  return resolveDefinition(workflowStoreFor(account).get(account, workflowId), params, version);
}
