import { ApplicationFailure, log } from '@temporalio/activity';
import type { ItemResultView } from '../pipelines/fan-in';
import { keptByWhere } from '../pipelines/step-plan';
import { FailureType } from '../domain/failures';
import type { PipelineItemRecord } from '../domain/pipeline-types';
import { heartbeat } from './context';
import { checkedKeyPrefix } from './errors';
import { itemRecordKey, keyOf, readSourcePage, runContext, type PipelineRunRef } from './pipeline-items';
import type { ArtifactStore } from './store';
import type { ArtifactRef, StoredOutputs } from '../domain/artifacts';

/** Largest stored result read back into outputs (bigger ones are linked, not inlined). */
const MAX_INLINE_BYTES = 2 * 1024 * 1024;
/** Input items read per page while visiting a run's items. */
const PAGE = 500;

/** A JSON file of the store, parsed. */
export async function readJson(store: ArtifactStore, key: string): Promise<unknown> {
  return JSON.parse(Buffer.from(await store.get(key)).toString('utf8'));
}

/** The view of one item: its record, and its output when that is structured or short. */
export async function viewOf(store: ArtifactStore, prefix: string, key: string, index: number): Promise<ItemResultView> {
  const ref = await store.stat(itemRecordKey(prefix, key));
  if (!ref) return { key, index, status: 'not_started', costUsd: 0, attempts: 0, files: [] };
  const record = (await readJson(store, ref.key)) as PipelineItemRecord;
  const view: ItemResultView = {
    key,
    index,
    status: record.status,
    costUsd: record.costUsd,
    attempts: record.attempts,
    files: [],
    ...(record.error !== undefined ? { error: record.error } : {}),
    ...(record.workflowId ? { workflowId: record.workflowId } : {}),
    ...(record.possiblyChargedUsd ? { possiblyChargedUsd: record.possiblyChargedUsd } : {}),
    ...(record.openAtService ? { openAtService: record.openAtService } : {}),
  };
  if (record.result) {
    view.report = { key: record.result.key, uri: record.result.uri };
    if (record.result.bytes <= MAX_INLINE_BYTES) view.output = ((await readJson(store, record.result.key)) as { output?: unknown }).output;
  }
  if (record.outputs) {
    const outputs: StoredOutputs = record.outputs;
    if (outputs.report) {
      view.report = { key: outputs.report.key, uri: outputs.report.uri };
      if (outputs.report.contentType.startsWith('application/json') && outputs.report.bytes <= MAX_INLINE_BYTES)
        view.output = await readJson(store, outputs.report.key);
    }
    view.files = [outputs.pdf, outputs.sources, ...outputs.deliverables, ...outputs.images]
      .filter((file): file is ArtifactRef => file !== undefined)
      .map((file) => ({ key: file.key, uri: file.uri }));
  }
  return view;
}

/** Visits every item of the run in input order with its view and its input value. */
export async function eachItem(
  store: ArtifactStore,
  run: PipelineRunRef,
  visit: (view: ItemResultView, value: unknown) => void | Promise<void>,
): Promise<void> {
  const prefix = checkedKeyPrefix(run.prefix);
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
      const { key } = keyOf(run.definition, run.source, item, context);
      await visit(await viewOf(store, prefix, key, item.index), item.value);
    }
    ({ cursor, done } = page);
    heartbeat({ index: cursor.index });
  }
}
