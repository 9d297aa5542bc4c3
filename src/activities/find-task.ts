import type { ResearchClient, Task, TaskSummary } from '../api';
import { ResearchApiError } from '../api';
import { callOptions } from './context';
import { callService, rethrowAsFailure } from './errors';

/** Metadata key that ties a service task to the request that created it. */
export const REQUEST_KEY_FIELD = 'rp_request_key';

/** How many recent tasks one lookup reads (the list route's page). */
export const FIND_LIMIT = 100;

/** Candidates read one by one at most; beyond this the lookup is inconclusive rather than slow. */
export const MAX_CANDIDATES = 20;

/** Allowance for the service's clock running behind ours when comparing `created_at` with the send time. */
export const CLOCK_SKEW_MS = 10 * 60_000;

/** What the service's records say about a lost create. */
export type LookupVerdict = { kind: 'found'; task: Task; duplicates: string[] } | { kind: 'absent' } | { kind: 'inconclusive'; reason: string };

/** What a lookup knows about the create it is looking for. */
export interface LookupInput {
  requestKey: string;
  query?: string;
  /** Epoch ms before the first create was sent. */
  createdAfter?: number;
}

/**
 * Looks for the task a create may have made. List items carry no metadata (both official clients show
 * `{deepresearch_id, query, status, created_at}` only), so the list only names candidates: tasks created
 * since the create was sent (less clock skew) with the same query. Each candidate is then read in full,
 * and only a task whose metadata carries this request key is ours.
 *
 * `absent` needs all of: no candidate is unverifiable (every one showed metadata with another key or
 * none of ours), and the list reaches back before the send time (or holds every task of the account).
 * Anything else is `inconclusive`, and nothing may be created again without an operator's decision.
 */
export async function lookForTask(api: ResearchClient, input: LookupInput): Promise<LookupVerdict> {
  const tasks = await callService(() => api.listTasks({ limit: FIND_LIMIT }, callOptions()));
  const since = input.createdAfter === undefined ? undefined : input.createdAfter - CLOCK_SKEW_MS;
  const createdAt = (task: TaskSummary): number => Date.parse(task.created_at);
  const inWindow = since === undefined ? tasks : tasks.filter((task) => createdAt(task) >= since);
  const query = input.query?.trim();
  const candidates = query === undefined ? inWindow : inWindow.filter((task) => task.query.trim() === query || task.input?.trim() === query);
  if (candidates.length > MAX_CANDIDATES) {
    return { kind: 'inconclusive', reason: `${candidates.length} recent tasks could be the one created; too many to check one by one` };
  }
  const ours: Task[] = [];
  const unverifiable: string[] = [];
  for (const candidate of candidates) {
    const full = await readCandidate(api, candidate.deepresearch_id);
    if (full === undefined || full.metadata === undefined) unverifiable.push(candidate.deepresearch_id);
    else if (full.metadata[REQUEST_KEY_FIELD] === input.requestKey) ours.push(full);
  }
  // The list is newest first, so the last match is the original.
  const original = ours.at(-1);
  if (original) return { kind: 'found', task: original, duplicates: ours.slice(0, -1).map((task) => task.deepresearch_id) };
  if (unverifiable.length > 0) {
    return {
      kind: 'inconclusive',
      reason: `task(s) ${unverifiable.join(', ')} match the query and time but do not show their metadata, so whose they are cannot be told`,
    };
  }
  const reachesBack = since !== undefined && tasks.some((task) => createdAt(task) < since);
  if (tasks.length >= FIND_LIMIT && !reachesBack) {
    return { kind: 'inconclusive', reason: `the ${FIND_LIMIT} most recent tasks do not reach back to when the create was sent` };
  }
  return { kind: 'absent' };
}

/** A candidate's full record; undefined when it is gone (deleted since), which proves nothing either way. */
async function readCandidate(api: ResearchClient, deepresearchId: string): Promise<Task | undefined> {
  try {
    return await api.getTask(deepresearchId, callOptions());
  } catch (error) {
    if (error instanceof ResearchApiError && error.status === 404) return undefined;
    return rethrowAsFailure(error);
  }
}
