import { posix } from 'node:path';
import { ApplicationFailure, log } from '@temporalio/activity';
import { estimateItem } from '../pipelines/estimate';
import { compareRuns, formatChangeReport, type ComparableItem } from '../pipelines/change-report';
import { csvText } from './csv-text';
import { contentTypeOf } from './filenames';
import { csvCell, csvColumns, jsonlLine, markdownIndex, outputSchemaOf, resultScope, type ItemResultView } from '../pipelines/fan-in';
import { renderSynthesisRequest, type ItemRequest } from '../pipelines/render-item';
import { renderTemplate } from '../shared/template';
import { FailureType } from '../domain/failures';
import type { PipelineItemRecord, PipelineOutputs } from '../domain/pipeline-types';
import type { ActivityDeps } from './deps';
import { heartbeat } from './context';
import { checkedKeyPrefix, invalidInput } from './errors';
import { itemRecordKey, keyOf, readSourcePage, runContext, type PipelineRunRef } from './pipeline-items';
import type { ArtifactRef, StoredOutputs } from '../domain/artifacts';

/** Largest stored result read back into outputs (bigger ones are linked, not inlined). */
const MAX_INLINE_BYTES = 2 * 1024 * 1024;
const PAGE = 500;

/** `writePipelineOutputs` input. */
export interface WritePipelineOutputsInput extends PipelineRunRef {
  ledger: { spentUsd: number; budgetUsd: number };
  /** Write a change report against the previous completed run of the pipeline. */
  compareWithPrevious?: boolean;
  /** The run finished normally: it becomes the previous run the next change report compares with. */
  completed: boolean;
  synthesis?: ArtifactRef;
}

/** `preparePipelineSynthesis` input. */
export type PreparePipelineSynthesisInput = PipelineRunRef;

/** Where the pipeline's last completed run is noted, for change reports. */
const latestKey = (pipeline: string): string => `pipelines/${pipeline}/latest.json`;

/** Activities that fan a run's results in: output files, the synthesis request, the change report. */
export function pipelineFanInActivities(deps: ActivityDeps) {
  const { store } = deps;

  async function readJson(key: string): Promise<unknown> {
    return JSON.parse(Buffer.from(await store.get(key)).toString('utf8'));
  }

  /** The view of one item: its record, and its output when that is structured or short. */
  async function viewOf(prefix: string, key: string, index: number): Promise<ItemResultView> {
    const ref = await store.stat(itemRecordKey(prefix, key));
    if (!ref) return { key, index, status: 'not_started', costUsd: 0, attempts: 0, files: [] };
    const record = await readJson(ref.key) as PipelineItemRecord;
    const view: ItemResultView = {
      key, index, status: record.status, costUsd: record.costUsd, attempts: record.attempts, files: [],
      ...(record.error !== undefined ? { error: record.error } : {}), ...(record.workflowId ? { workflowId: record.workflowId } : {}),
      ...(record.possiblyChargedUsd ? { possiblyChargedUsd: record.possiblyChargedUsd } : {}),
      ...(record.openAtService ? { openAtService: record.openAtService } : {}),
    };
    if (record.result) {
      view.report = { key: record.result.key, uri: record.result.uri };
      if (record.result.bytes <= MAX_INLINE_BYTES) view.output = ((await readJson(record.result.key)) as { output?: unknown }).output;
    }
    if (record.outputs) {
      const outputs: StoredOutputs = record.outputs;
      if (outputs.report) {
        view.report = { key: outputs.report.key, uri: outputs.report.uri };
        if (outputs.report.contentType.startsWith('application/json') && outputs.report.bytes <= MAX_INLINE_BYTES) view.output = await readJson(outputs.report.key);
      }
      view.files = [outputs.pdf, outputs.sources, ...outputs.deliverables, ...outputs.images].filter((file): file is ArtifactRef => file !== undefined).map((file) => ({ key: file.key, uri: file.uri }));
    }
    return view;
  }

  /** Visits every item of the run in input order with its view and its input value. */
  async function eachItem(run: PipelineRunRef, visit: (view: ItemResultView, value: unknown) => void | Promise<void>): Promise<void> {
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
        const { key } = keyOf(run.definition, run.source, item, context);
        await visit(await viewOf(prefix, key, item.index), item.value);
      }
      ({ cursor, done } = page);
      heartbeat({ index: cursor.index });
    }
  }

  /** What a change report compares: status, and the structured output or a digest of the report. */
  const comparable = (view: ItemResultView, sha256?: string): ComparableItem => ({
    status: view.status, ...(view.output !== undefined ? { output: view.output } : sha256 ? { output: { report_sha256: sha256 } } : {}),
  });

  async function previousItems(prefix: string): Promise<Map<string, ComparableItem>> {
    const items = new Map<string, ComparableItem>();
    for (const ref of await store.list(`${prefix}/items`)) {
      const key = posix.basename(ref.key, '.json');
      const record = await readJson(ref.key) as PipelineItemRecord;
      const view = await viewOf(prefix, key, record.index);
      items.set(key, comparable(view, record.outputs?.report?.sha256));
    }
    return items;
  }

  /**
   * Writes the run's outputs (JSONL, CSV with JSON Schema outputs flattened to columns, a Markdown index
   * linking each report) under `<prefix>/outputs/`, and, when asked, a change report against the previous
   * completed run. Reads the input again page by page and each item's record: nothing is held in history.
   */
  async function writePipelineOutputs(input: WritePipelineOutputsInput): Promise<PipelineOutputs> {
    const prefix = checkedKeyPrefix(input.prefix);
    const { definition } = input;
    const context = runContext(input);
    const scope = { params: context.params, pipeline: context.pipeline, run: context.run };
    const schema = outputSchemaOf(definition);
    const files = definition.outputs.map((output) => {
      const fileName = `results.${output.format === 'markdown' ? 'md' : output.format}`;
      const name = renderTemplate(output.file ?? fileName, scope);
      if (name.split('/').some((part) => part === '..' || part.startsWith('.'))) throw invalidInput(`outputs.file: "${name}" must stay inside the run's folder`);
      // The type follows the format, whatever extension the file was given.
      return { output, key: `${prefix}/outputs/${name}`, contentType: contentTypeOf(fileName), columns: output.columns ? csvColumns(output.columns, schema) : [], lines: [] as string[], rows: [] as string[][] };
    });
    const views: ItemResultView[] = [];
    const current = new Map<string, ComparableItem>();
    await eachItem(input, async (view, value) => {
      const itemScope = { ...scope, item: value, result: resultScope(view) };
      for (const file of files) {
        if (file.output.format === 'jsonl') file.lines.push(jsonlLine(view, value));
        if (file.output.format === 'csv') file.rows.push(file.columns.map((column) => csvCell(column.template, itemScope)));
      }
      views.push({ ...view, output: undefined });
      if (input.compareWithPrevious) {
        const record = view.status === 'not_started' ? undefined : await readJson(itemRecordKey(prefix, view.key)) as PipelineItemRecord;
        current.set(view.key, comparable(view, record?.outputs?.report?.sha256));
      }
    });

    let changes: ArtifactRef | undefined;
    if (input.compareWithPrevious) changes = await writeChangeReport(input, prefix, current);
    const written: ArtifactRef[] = [];
    for (const file of files) {
      const body = file.output.format === 'jsonl' ? `${file.lines.join('\n')}${file.lines.length ? '\n' : ''}`
        : file.output.format === 'csv' ? csvText(file.columns.map((column) => column.header), file.rows, { escapeFormulas: file.output.escape_formulas !== false })
          : markdownIndex({
            title: `${definition.name}: run ${input.runKey}`, indexKey: file.key, views, totals: input.ledger,
            ...(input.synthesis ? { synthesis: { key: input.synthesis.key } } : {}), ...(changes ? { changes: { key: changes.key } } : {}),
          });
      written.push(await store.put(file.key, body, file.contentType));
    }
    if (input.completed) await store.put(latestKey(definition.name), `${JSON.stringify({ runKey: input.runKey, prefix })}\n`, 'application/json');
    const folderUri = written[0] ? written[0].uri.slice(0, written[0].uri.length - (written[0].key.length - `${prefix}/outputs`.length)) : '';
    return { prefix, folderUri, files: written, ...(input.synthesis ? { synthesis: input.synthesis } : {}), ...(changes ? { changes } : {}) };
  }

  async function writeChangeReport(input: WritePipelineOutputsInput, prefix: string, current: Map<string, ComparableItem>): Promise<ArtifactRef | undefined> {
    const pointer = await store.stat(latestKey(input.definition.name));
    if (!pointer) return undefined;
    const previous = await readJson(pointer.key) as { runKey: string; prefix: string };
    if (previous.prefix === prefix) return undefined;
    const report = compareRuns({ run: previous.runKey, items: await previousItems(previous.prefix) }, { run: input.runKey, items: current });
    await store.put(`${prefix}/outputs/changes.json`, `${JSON.stringify(report, null, 2)}\n`, 'application/json');
    return store.put(`${prefix}/outputs/changes.md`, formatChangeReport(report, input.definition.name), contentTypeOf('changes.md'));
  }

  /**
   * The synthesis request with the collected results attached to its query: each completed item's
   * structured output or the start of its report, within the route's query limit.
   */
  async function preparePipelineSynthesis(input: PreparePipelineSynthesisInput): Promise<{ request: ItemRequest; reserveUsd: number }> {
    const rendered = renderSynthesisRequest(input.definition, runContext(input));
    if (!rendered || (rendered.kind !== 'answer' && rendered.kind !== 'deepresearch')) throw invalidInput('the definition has no synthesis step');
    const query = rendered.request.query ?? '';
    const room = (rendered.kind === 'deepresearch' ? 25_000 : 20_000) - query.length - 200;
    const parts: string[] = [];
    let used = 0;
    await eachItem(input, async (view) => {
      if (view.status !== 'completed' || used >= room) return;
      let body = view.output !== undefined ? (typeof view.output === 'string' ? view.output : JSON.stringify(view.output)) : '';
      if (!body && view.report) body = Buffer.from(await store.get(view.report.key)).toString('utf8').slice(0, 2_000);
      const part = `### ${view.key}\n${body.slice(0, 2_000)}`;
      parts.push(part.slice(0, room - used));
      used += part.length + 2;
    });
    const attached = `${query}\n\nResults of the ${parts.length} items:\n\n${parts.join('\n\n')}`;
    const request: ItemRequest = rendered.kind === 'answer'
      ? { kind: 'answer', request: { ...rendered.request, query: attached } }
      : { kind: 'deepresearch', request: { ...rendered.request, query: attached } };
    const estimate = estimateItem(request);
    return { request, reserveUsd: Math.max(estimate.usd, estimate.maxUsd) };
  }

  return { writePipelineOutputs, preparePipelineSynthesis };
}
