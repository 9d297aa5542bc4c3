import { compareRuns, formatChangeReport, type ComparableItem } from '../pipelines/change-report';
import type { ItemResultView } from '../pipelines/fan-in';
import { comparableStep } from '../pipelines/fan-in-steps';
import { readAhead } from '../shared/read-ahead';
import { viewAndRecordOf, VIEWS_READ_AHEAD } from './pipeline-item-views';
import { readJsonIfStored, recordedItemKeys } from './pipeline-items';
import type { ArtifactStore } from './store';
import type { ArtifactRef } from '../domain/artifacts';
import { contentTypeOf } from './filenames';

/** Where the pipeline's last completed run is noted, for change reports. */
const latestKey = (pipeline: string): string => `pipelines/${pipeline}/latest.json`;

/** What a change report compares: status, and the structured output or a digest of the report. */
export function comparable(view: ItemResultView, sha256?: string): ComparableItem {
  return {
    status: view.status,
    ...(view.output !== undefined ? { output: view.output } : sha256 ? { output: { report_sha256: sha256 } } : {}),
    ...(view.steps ? { steps: Object.fromEntries(view.steps.map((step) => [step.id, comparableStep(step)])) } : {}),
  };
}

/** Notes a completed run as the one the pipeline's next change report compares with. */
export async function markLatestRun(store: ArtifactStore, pipeline: string, run: { runKey: string; prefix: string }): Promise<void> {
  await store.put(latestKey(pipeline), `${JSON.stringify({ runKey: run.runKey, prefix: run.prefix })}\n`, 'application/json');
}

/**
 * The comparable items of a run that ended before, read from its records: each record once, with its
 * result, VIEWS_READ_AHEAD items at a time (a recurring run may have 100,000 items).
 */
async function previousItems(store: ArtifactStore, prefix: string): Promise<Map<string, ComparableItem>> {
  const items = new Map<string, ComparableItem>();
  const views = readAhead(await recordedItemKeys(store, prefix), VIEWS_READ_AHEAD, (key) => viewAndRecordOf(store, prefix, key, 0));
  for await (const [key, { view, record }] of views) if (record) items.set(key, comparable(view, record.outputs?.report?.sha256));
  return items;
}

/**
 * Writes `changes.json` and `changes.md` under the run's outputs: what changed against the pipeline's
 * previous completed run. Nothing when there is none (or it is this run).
 */
export async function writeChangeReport(
  store: ArtifactStore,
  run: { pipeline: string; runKey: string; prefix: string },
  current: Map<string, ComparableItem>,
): Promise<ArtifactRef | undefined> {
  const previous = (await readJsonIfStored(store, latestKey(run.pipeline))) as { runKey: string; prefix: string } | undefined;
  if (!previous || previous.prefix === run.prefix) return undefined;
  const report = compareRuns({ run: previous.runKey, items: await previousItems(store, previous.prefix) }, { run: run.runKey, items: current });
  await store.put(`${run.prefix}/outputs/changes.json`, `${JSON.stringify(report, null, 2)}\n`, 'application/json');
  return store.put(`${run.prefix}/outputs/changes.md`, formatChangeReport(report, run.pipeline), contentTypeOf('changes.md'));
}
