import { TERMINAL_TASK_STATUSES, type BatchTask } from '../api';
import type { ActivityDeps } from './deps';
import { callOptions, heartbeat, throwIfCancelled } from './context';
import { callService, checkedKeyPrefix } from './errors';
import { renderReport, renderSources, safeSegment } from './filenames';
import type { CollectBatchPageInput, CollectedBatchPage, CollectedBatchTask } from './types';

/** Tasks per page when the workflow gives no size: outputs come inline, so pages stay modest. */
export const DEFAULT_COLLECT_PAGE_SIZE = 25;

/**
 * Builds `collectResearchBatchPage`: reads one page of a batch's tasks with their outputs and stores each
 * ended task's report and sources under `<keyPrefix>/<batch task id or task id>/`; tasks still going are
 * reported by status only. A retry rewrites the same page (atomic, identical content), nothing is paid.
 */
export function collectBatchPage(deps: ActivityDeps) {
  const { api, store } = deps;

  /** Stores one page of a finished batch's outputs and says where the next page starts. */
  return async function collectResearchBatchPage({ batchId, keyPrefix, lastKey, pageSize, pageIndex }: CollectBatchPageInput): Promise<CollectedBatchPage> {
    const prefix = checkedKeyPrefix(keyPrefix);
    const page = await callService(() =>
      api.listBatchTasksPage(
        batchId,
        { limit: pageSize ?? DEFAULT_COLLECT_PAGE_SIZE, include_output: true, ...(lastKey ? { last_key: lastKey } : {}) },
        callOptions(),
      ),
    );
    const tasks: CollectedBatchTask[] = [];
    for (const [index, entry] of page.tasks.entries()) {
      throwIfCancelled();
      tasks.push(await collect(entry, prefix));
      heartbeat({ collected: index + 1 });
    }
    const nextKey = page.pagination.last_key ?? undefined;
    // A manifest per page lets a workflow keep only references when a batch has too many tasks for history.
    const manifest =
      pageIndex === undefined
        ? undefined
        : await store.put(
            `${prefix}/manifests/page-${String(pageIndex).padStart(5, '0')}.jsonl`,
            tasks.map((task) => JSON.stringify(task)).join('\n') + '\n',
            'application/x-ndjson',
          );
    return { tasks, hasMore: page.pagination.has_more, ...(manifest ? { manifest } : {}), ...(nextKey ? { nextKey } : {}) };
  };

  async function collect(entry: BatchTask, prefix: string): Promise<CollectedBatchTask> {
    const collected: CollectedBatchTask = {
      ...(entry.task_id !== undefined ? { batchTaskId: entry.task_id } : {}),
      deepresearchId: entry.deepresearch_id,
      status: entry.status,
      sourceCount: entry.sources?.length ?? 0,
      ...(entry.cost !== undefined ? { cost: entry.cost } : {}),
      ...(entry.error !== undefined ? { error: entry.error } : {}),
    };
    if (!TERMINAL_TASK_STATUSES.includes(entry.status)) return collected;
    const folder = `${prefix}/${safeSegment(entry.task_id ?? entry.deepresearch_id)}`;
    const report = renderReport(entry);
    if (report) collected.report = await store.put(`${folder}/${report.fileName}`, report.body, report.contentType);
    const sources = renderSources(entry);
    if (sources !== undefined) collected.sources = await store.put(`${folder}/sources.json`, sources, 'application/json');
    return collected;
  }
}
