import { ApplicationFailure } from '@temporalio/activity';
import type { ResearchClient, Task, TaskSummary } from '../api';
import { ResearchApiError } from '../api';
import { callOptions } from './context';
import { callService, rethrowAsFailure } from './errors';

/** Metadata key that ties a service task to the request that created it. */
export const REQUEST_KEY_FIELD = 'rp_request_key';

/** How many recent tasks the first look reads: the list route's largest page (both official clients: 1 to 100). */
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

/** Tasks read from the list, and whether they are known to cover every task since the send time. */
interface ListRead {
  tasks: TaskSummary[];
  /** They reach back before the send time, or they are every task of the account. */
  covers: boolean;
  /** Why they do not, for the operator. */
  gap?: string;
}

/**
 * Looks for the task a create may have made. List items carry no metadata (both official clients show
 * `{deepresearch_id, query, status, created_at}` only), so the list only names candidates: tasks created
 * since the create was sent (less clock skew) with the same query. Each candidate is then read in full,
 * and only a task whose metadata carries this request key is ours.
 *
 * The list is read in two steps (see `readWindow`): the 100 most recent tasks, and when those do not
 * reach back to the send time, the whole list (the route without `limit`), so a window of hundreds or
 * thousands of tasks is still decided.
 *
 * `absent` needs all of: no candidate is unverifiable (every one showed metadata with another key or
 * none of ours), and the tasks read cover the window: they reach back before the send time, or they are
 * every task of the account. Anything else is `inconclusive`, and nothing may be created again without
 * an operator's decision.
 */
export async function lookForTask(api: ResearchClient, input: LookupInput): Promise<LookupVerdict> {
  const since = input.createdAfter === undefined ? undefined : input.createdAfter - CLOCK_SKEW_MS;
  const read = await readWindow(api, since);
  const { tasks } = read;
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
  if (!read.covers) return { kind: 'inconclusive', reason: read.gap ?? 'the task list does not reach back to when the create was sent' };
  return { kind: 'absent' };
}

const createdAt = (task: TaskSummary): number => Date.parse(task.created_at);

/**
 * Reads enough of the task list to cover every task created since `since`. First the 100 most recent
 * (the largest page both official clients allow): that covers the window when it reaches back before
 * `since` or holds fewer than 100 tasks (then it is the whole list). Otherwise the route without
 * `limit`, which the Python client documents as every task of the key: that covers the window when it
 * reaches back before `since`, or when it is evidently the whole list: longer than any page the route
 * gives (more than 100 tasks) and holding every task of the first read. A list the service cut to a
 * page, or one too large to read (the client's JSON cap), covers nothing, and the lookup stays
 * inconclusive.
 */
async function readWindow(api: ResearchClient, since: number | undefined): Promise<ListRead> {
  const recent = await callService(() => api.listTasks({ limit: FIND_LIMIT }, callOptions()));
  const reachesBack = (tasks: TaskSummary[]) => since !== undefined && tasks.some((task) => createdAt(task) < since);
  if (reachesBack(recent)) return { tasks: recent, covers: true };
  if (recent.length < FIND_LIMIT) return { tasks: recent, covers: true };
  let all: TaskSummary[];
  try {
    all = await callService(() => api.listTasks({}, callOptions()));
  } catch (error) {
    // A refusal or an answer the client will not read (over its JSON cap, say) settles nothing; a
    // transient failure is retried with the activity.
    if (!(error instanceof ApplicationFailure) || !error.nonRetryable) throw error;
    return {
      tasks: recent,
      covers: false,
      gap: `the ${FIND_LIMIT} most recent tasks do not reach back to when the create was sent, and the whole list could not be read (${error.message})`,
    };
  }
  if (reachesBack(all)) return { tasks: all, covers: true };
  const ids = new Set(all.map((task) => task.deepresearch_id));
  if (all.length > FIND_LIMIT && recent.every((task) => ids.has(task.deepresearch_id))) return { tasks: all, covers: true };
  return {
    tasks: all,
    covers: false,
    gap: `the ${FIND_LIMIT} most recent tasks do not reach back to when the create was sent, and the list asked for in full (${all.length} tasks) is not evidently the whole list`,
  };
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
