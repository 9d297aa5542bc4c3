import type { ComparableItem } from '../pipelines/change-report';
import { defaultStepColumns, stepOutputSchemas, stepsResultScope } from '../pipelines/fan-in-steps';
import { csvCell, csvColumns, jsonlLine, markdownIndex, outputSchemaOf, resultScope, type ItemResultView } from '../pipelines/fan-in';
import { renderTemplate } from '../shared/template';
import type { PipelineItemRecord, PipelineOutputs } from '../domain/pipeline-types';
import type { ActivityDeps } from './deps';
import { csvText } from './csv-text';
import { contentTypeOf } from './filenames';
import { checkedKeyPrefix, invalidInput } from './errors';
import { comparable, markLatestRun, writeChangeReport } from './pipeline-change-report';
import { eachItem, readJson } from './pipeline-item-views';
import { itemRecordKey, runContext, type PipelineRunRef } from './pipeline-items';
import type { ArtifactStore } from './store';
import type { ArtifactRef } from '../domain/artifacts';

/** `writePipelineOutputs` input. */
export interface WritePipelineOutputsInput extends PipelineRunRef {
  ledger: { spentUsd: number; budgetUsd: number };
  /** Write a change report against the previous completed run of the pipeline. */
  compareWithPrevious?: boolean;
  /** The run finished normally: it becomes the previous run the next change report compares with. */
  completed: boolean;
  synthesis?: ArtifactRef;
}

/**
 * Writes the run's outputs (JSONL, CSV with JSON Schema outputs flattened to columns, a Markdown index
 * linking each report) under `<prefix>/outputs/`, and, when asked, a change report against the previous
 * completed run. Reads the input again page by page and each item's record: nothing is held in history.
 */
export async function writePipelineOutputs(store: ArtifactStore, input: WritePipelineOutputsInput): Promise<PipelineOutputs> {
  const prefix = checkedKeyPrefix(input.prefix);
  const { definition } = input;
  const context = runContext(input);
  const scope = { params: context.params, pipeline: context.pipeline, run: context.run };
  const schema = outputSchemaOf(definition);
  const stepSchemas = stepOutputSchemas(definition);
  const files = definition.outputs.map((output) => {
    const fileName = `results.${output.format === 'markdown' ? 'md' : output.format}`;
    const name = renderTemplate(output.file ?? fileName, scope);
    if (name.split('/').some((part) => part === '..' || part.startsWith('.'))) throw invalidInput(`outputs.file: "${name}" must stay inside the run's folder`);
    // The type follows the format, whatever extension the file was given.
    return {
      output,
      key: `${prefix}/outputs/${name}`,
      contentType: contentTypeOf(fileName),
      columns: csvColumns(output.columns ?? (definition.steps ? defaultStepColumns(definition) : {}), schema, stepSchemas),
      lines: [] as string[],
      rows: [] as string[][],
    };
  });
  const views: ItemResultView[] = [];
  const current = new Map<string, ComparableItem>();
  await eachItem(store, input, async (view, value) => {
    const itemScope = { ...scope, item: value, result: resultScope(view), ...(view.steps ? { key: view.key, steps: stepsResultScope(view.steps) } : {}) };
    for (const file of files) {
      if (file.output.format === 'jsonl') file.lines.push(jsonlLine(view, value));
      if (file.output.format === 'csv') file.rows.push(file.columns.map((column) => csvCell(column.template, itemScope)));
    }
    views.push({ ...view, output: undefined, ...(view.steps ? { steps: view.steps.map((step) => ({ ...step, output: undefined })) } : {}) });
    if (input.compareWithPrevious) {
      const record = view.status === 'not_started' ? undefined : ((await readJson(store, itemRecordKey(prefix, view.key))) as PipelineItemRecord);
      current.set(view.key, comparable(view, record?.outputs?.report?.sha256));
    }
  });

  let changes: ArtifactRef | undefined;
  if (input.compareWithPrevious) changes = await writeChangeReport(store, { pipeline: definition.name, runKey: input.runKey, prefix }, current);
  const written: ArtifactRef[] = [];
  for (const file of files) {
    const body =
      file.output.format === 'jsonl'
        ? `${file.lines.join('\n')}${file.lines.length ? '\n' : ''}`
        : file.output.format === 'csv'
          ? csvText(
              file.columns.map((column) => column.header),
              file.rows,
              { escapeFormulas: file.output.escape_formulas !== false },
            )
          : markdownIndex({
              title: `${definition.name}: run ${input.runKey}`,
              indexKey: file.key,
              views,
              totals: input.ledger,
              ...(input.synthesis ? { synthesis: { key: input.synthesis.key } } : {}),
              ...(changes ? { changes: { key: changes.key } } : {}),
            });
    written.push(await store.put(file.key, body, file.contentType));
  }
  if (input.completed) await markLatestRun(store, definition.name, { runKey: input.runKey, prefix });
  const folderUri = written[0] ? written[0].uri.slice(0, written[0].uri.length - (written[0].key.length - `${prefix}/outputs`.length)) : '';
  return { prefix, folderUri, files: written, ...(input.synthesis ? { synthesis: input.synthesis } : {}), ...(changes ? { changes } : {}) };
}

/** The activity that fans a run's results in to its output files. */
export function pipelineOutputActivities({ store }: ActivityDeps) {
  return { writePipelineOutputs: (input: WritePipelineOutputsInput) => writePipelineOutputs(store, input) };
}
