import { ApplicationFailure, log } from '@temporalio/activity';
import type { ItemResultView } from '../pipelines/fan-in';
import type { ItemStepView } from '../pipelines/fan-in-steps';
import { sequenceSteps } from '../pipelines/step-kind';
import { keptByWhere } from '../pipelines/step-plan';
import { FailureType } from '../domain/failures';
import type { PipelineItemRecord, PipelineStepRecord } from '../domain/pipeline-types';
import { readAhead } from '../shared/read-ahead';
import { heartbeat } from './context';
import { checkedKeyPrefix } from './errors';
import { itemRecordKey, keyOf, readJson, readSourcePage, runContext, type PipelineRunRef } from './pipeline-items';

export { readJson };
import { ArtifactNotFoundError, type ArtifactStore } from './store';
import type { ArtifactRef, StoredOutputs } from '../domain/artifacts';

/** Largest stored result read back into outputs (bigger ones are linked, not inlined). */
const MAX_INLINE_BYTES = 2 * 1024 * 1024;
/** Input items read per page while visiting a run's items. */
const PAGE = 500;

/** The entries of a list that name a web address (`{ url, title }`), as sources. */
export function webSources(list: unknown): Array<{ title?: string; url: string }> {
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry: unknown) => {
    const { url, title } = (typeof entry === 'object' && entry !== null ? entry : {}) as { url?: unknown; title?: unknown };
    return typeof url === 'string' ? [{ url, ...(typeof title === 'string' && title ? { title } : {}) }] : [];
  });
}

/** Where a stored result or report's output is, and its files: what an item or one of its steps stored. */
async function storedOutput(
  store: ArtifactStore,
  stored: { result?: ArtifactRef; outputs?: StoredOutputs },
): Promise<Pick<ItemResultView, 'output' | 'report' | 'files' | 'sources' | 'sourcesCount'>> {
  const view: Pick<ItemResultView, 'output' | 'report' | 'files' | 'sources' | 'sourcesCount'> = { files: [], sourcesCount: 0 };
  if (stored.result) {
    view.report = { key: stored.result.key, uri: stored.result.uri };
    if (stored.result.bytes <= MAX_INLINE_BYTES) {
      const result = (await readJson(store, stored.result.key)) as { kind?: string; output?: unknown; sources?: unknown };
      view.output = result.output;
      // An answer lists the search results it drew on; a search's or a contents call's results are its sources.
      const cited = result.kind === 'search' || result.kind === 'contents' ? result.output : result.sources;
      view.sources = webSources(cited);
      view.sourcesCount = view.sources.length;
    }
  }
  if (stored.outputs) {
    const outputs: StoredOutputs = stored.outputs;
    if (outputs.report) {
      view.report = { key: outputs.report.key, uri: outputs.report.uri };
      if (outputs.report.contentType.startsWith('application/json') && outputs.report.bytes <= MAX_INLINE_BYTES)
        view.output = await readJson(store, outputs.report.key);
    }
    view.sourcesCount = outputs.sourceCount;
    view.files = [outputs.pdf, outputs.sources, ...outputs.deliverables, ...outputs.images]
      .filter((file): file is ArtifactRef => file !== undefined)
      .map((file) => ({ key: file.key, uri: file.uri }));
  }
  return view;
}

/** Each step of a `steps:` item as the outputs see it, in definition order (`not_run` for steps it never reached). */
async function stepViews(
  store: ArtifactStore,
  records: readonly PipelineStepRecord[],
  steps: ReadonlyArray<{ id: string; kind: string }>,
): Promise<ItemStepView[]> {
  const views: ItemStepView[] = [];
  for (const step of steps) {
    const record = records.find((entry) => entry.id === step.id);
    if (!record) {
      views.push({ id: step.id, kind: step.kind, status: 'not_run', costUsd: 0, files: [] });
      continue;
    }
    const { output, report, files, sourcesCount, sources } = await storedOutput(store, record);
    views.push({
      id: step.id,
      kind: record.kind,
      status: record.status,
      costUsd: record.costUsd,
      ...(output !== undefined ? { output } : {}),
      ...(report ? { report } : {}),
      files,
      sourcesCount,
      ...(sources ? { sources } : {}),
      ...(record.workflowId ? { workflowId: record.workflowId } : {}),
      ...(record.error !== undefined ? { error: record.error } : {}),
      ...(record.skippedBecause ? { skippedBecause: record.skippedBecause } : {}),
      ...(record.possiblyChargedUsd ? { possiblyChargedUsd: record.possiblyChargedUsd } : {}),
      ...(record.outputs?.report?.sha256 ? { reportSha256: record.outputs.report.sha256 } : {}),
    });
  }
  return views;
}

/**
 * The view of one item: its record, and its output when that is structured or short. `steps` (a
 * `steps:` pipeline) lists every step, so an item that stopped early shows the steps it never ran.
 */
export async function viewOf(
  store: ArtifactStore,
  prefix: string,
  key: string,
  index: number,
  steps?: ReadonlyArray<{ id: string; kind: string }>,
): Promise<ItemResultView> {
  return (await viewAndRecordOf(store, prefix, key, index, steps)).view;
}

/** An item's view with the record it came from (none for an item that never started). */
export async function viewAndRecordOf(
  store: ArtifactStore,
  prefix: string,
  key: string,
  index: number,
  steps?: ReadonlyArray<{ id: string; kind: string }>,
): Promise<{ view: ItemResultView; record?: PipelineItemRecord }> {
  let record: PipelineItemRecord;
  try {
    // One read: a record that is not there rejects with ArtifactNotFoundError, which says what a stat would.
    record = (await readJson(store, itemRecordKey(prefix, key))) as PipelineItemRecord;
  } catch (error) {
    if (!(error instanceof ArtifactNotFoundError)) throw error;
    const notRun = steps ? { steps: steps.map((step) => ({ id: step.id, kind: step.kind, status: 'not_run' as const, costUsd: 0, files: [] })) } : {};
    return { view: { key, index, status: 'not_started', costUsd: 0, attempts: 0, files: [], sourcesCount: 0, ...notRun } };
  }
  const view: ItemResultView = {
    key,
    index,
    status: record.status,
    costUsd: record.costUsd,
    attempts: record.attempts,
    files: [],
    sourcesCount: 0,
    ...(record.error !== undefined ? { error: record.error } : {}),
    ...(record.workflowId ? { workflowId: record.workflowId } : {}),
    ...(record.possiblyChargedUsd ? { possiblyChargedUsd: record.possiblyChargedUsd } : {}),
    ...(record.openAtService ? { openAtService: record.openAtService } : {}),
  };
  Object.assign(view, await storedOutput(store, record));
  const listed = steps ?? record.steps?.map((step) => ({ id: step.id, kind: step.kind }));
  if (listed) {
    view.steps = await stepViews(store, record.steps ?? [], listed);
    // A steps: item cites what its steps cite.
    view.sourcesCount += view.steps.reduce((sum, step) => sum + (step.sourcesCount ?? 0), 0);
  }
  return { view, record };
}

/**
 * Views read ahead of the visitor, at most this many at once: the store's latency overlaps, and memory
 * stays bounded (a view may inline a result of up to MAX_INLINE_BYTES).
 */
export const VIEWS_READ_AHEAD = 16;

/** An input item to visit: its key and index, and its value. */
interface ItemToVisit {
  key: string;
  index: number;
  value: unknown;
}

/** The run's input items kept by `where`, in input order, page by page (a heartbeat per page read). */
async function* itemsToVisit(run: PipelineRunRef): AsyncGenerator<ItemToVisit> {
  const context = runContext(run);
  let cursor;
  for (let done = false; !done;) {
    let page;
    try {
      page = await readSourcePage(run.source, cursor, PAGE);
    } catch (error) {
      // An input that cannot be read further (the run fails for it) still gets the outputs of what was read.
      if (!(error instanceof ApplicationFailure) || error.type !== FailureType.InvalidInput) throw error;
      log.warn('outputs stop where the input could not be read further', { problem: error.message });
      return;
    }
    for (const item of page.items) {
      if (!keptByWhere(run.definition, item.value, context.params)) continue;
      yield { key: keyOf(run.definition, run.source, item, context).key, index: item.index, value: item.value };
    }
    ({ cursor, done } = page);
    heartbeat({ index: cursor.index });
  }
}

/**
 * Visits every item of the run in input order with its view, its input value and its record (none for
 * an item that never started). Up to VIEWS_READ_AHEAD views are read while the visitor works; the visitor
 * still sees one item at a time, in order.
 */
export async function eachItem(
  store: ArtifactStore,
  run: PipelineRunRef,
  visit: (view: ItemResultView, value: unknown, record: PipelineItemRecord | undefined) => void | Promise<void>,
): Promise<void> {
  const prefix = checkedKeyPrefix(run.prefix);
  const steps = run.definition.steps ? sequenceSteps(run.definition).map((step) => ({ id: step.id, kind: step.kind })) : undefined;
  for await (const [{ value }, { view, record }] of readAhead(itemsToVisit(run), VIEWS_READ_AHEAD, ({ key, index }) =>
    viewAndRecordOf(store, prefix, key, index, steps),
  ))
    await visit(view, value, record);
}
