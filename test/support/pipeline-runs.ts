import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { researchTaskStateQuery, respondToCheckpointUpdate } from '../../src/workflows/definitions';
import type { ResearchTaskState } from '../../src/workflows/types';
import type { ScenarioEnv, ScenarioHandle } from './scenario-env';

/** `count` inline companies as YAML list lines (`Company <n>`, `company-<n>.example`; keyed `company-<n>-example`). */
export const companies = (count: number): string =>
  Array.from({ length: count }, (_, index) => `    - { name: Company ${index + 1}, domain: company-${index + 1}.example }`).join('\n');

/** Options of {@link companyProfiles}. */
export interface CompanyProfilesOptions {
  /** How many companies (see {@link companies}). */
  readonly companies: number;
  readonly concurrency: number;
  /** Each task stops at a plan review until a person answers it. */
  readonly planReview?: boolean;
  /** The run's budget; 5 USD by default. */
  readonly budgetUsd?: number;
  /** More top-level lines of the definition (`retries: 2`, say). */
  readonly more?: string;
}

/** A pipeline `name` that profiles each company with one fast DeepResearch task (about 0.10 USD each), starting items without delay. */
export function companyProfiles(name: string, options: CompanyProfilesOptions): string {
  return `
name: ${name}
input:
  items:
${companies(options.companies)}
  key: "{{ item.domain | slug }}"
step:
  deepresearch:
    query: "Profile {{ item.name }}"
    mode: fast
${options.planReview ? '    hitl: { plan_review: true }\n' : ''}concurrency: ${options.concurrency}
start_rate_per_second: 50
budget_usd: ${options.budgetUsd ?? 5}
${options.more ?? ''}`;
}

/** A pipeline `name` with one item, Acme, whose fast DeepResearch task stops at a plan review until a person answers it; `more` adds top-level lines. */
export function planReviewedAcme(name: string, more = ''): string {
  return `
name: ${name}
input:
  items: [Acme]
  key: "{{ item | slug }}"
step:
  deepresearch:
    query: "Profile of {{ item }}"
    mode: fast
    hitl: { plan_review: true }
concurrency: 1
budget_usd: 5
${more}`;
}

/** The objects of a run's JSONL output (its first output file), one a line. */
export async function jsonlOutput<T>(outputs: { readonly files: ReadonlyArray<{ readonly uri: string }> } | undefined): Promise<T[]> {
  const file = outputs?.files[0];
  if (!file) throw new Error('the run wrote no output file');
  return (await readFile(fileURLToPath(file.uri), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as T);
}

/**
 * Waits, up to an hour of scenario time, until the research task workflow `handle` names (it may not
 * have started yet) waits at a checkpoint; returns its state then.
 */
export async function waitAtCheckpoint(env: ScenarioEnv, handle: ScenarioHandle<unknown>, description: string): Promise<ResearchTaskState> {
  await env.waitUntil(async () => (await handle.query(researchTaskStateQuery).catch(() => undefined))?.interaction !== undefined, {
    timeoutMs: 3_600_000,
    description,
  });
  return handle.query(researchTaskStateQuery);
}

/** Approves checkpoint `interactionId` of the research task workflow `handle`, as a person would. */
export async function approvePlan(handle: ScenarioHandle<unknown>, interactionId: string): Promise<void> {
  await handle.executeUpdate(respondToCheckpointUpdate, { interactionId, response: { approved: true } });
}
