import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ComparableItem } from '../pipelines/change-report';
import { addToTally, emptyTally, markdownDigest, MAX_DIGEST_ITEMS, type DigestItem } from '../pipelines/digest';
import { defaultStepColumns, stepOutputSchemas, stepsResultScope } from '../pipelines/fan-in-steps';
import { csvCell, csvColumns, csvColumnsWithTotals, jsonlLine, outputSchemaOf, resultScope, type CsvColumn } from '../pipelines/fan-in';
import { renderTemplate } from '../shared/template';
import type { PipelineOutputs } from '../domain/pipeline-types';
import type { ActivityDeps } from './deps';
import { csvRows } from './csv-text';
import { contentTypeOf } from './filenames';
import { checkedKeyPrefix, invalidInput } from './errors';
import { comparable, markLatestRun, writeChangeReport } from './pipeline-change-report';
import { digestItem, embeddedReport, synthesisText } from './pipeline-digest';
import { eachItem } from './pipeline-item-views';
import { runContext, type PipelineRunRef } from './pipeline-items';
import { SpoolFile } from './spool-file';
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

/** Longest synthesis and change report text carried into the digest, in characters. */
const EMBEDDED_CHARS = 20_000;

/** CSV rows held before they are turned into text and spooled. */
const CSV_ROWS_HELD = 256;

/** A column that reads an item's field (`{{ item.x }}`): empty in every item, it likely names a field that is not there. */
const readsItemField = (column: CsvColumn): boolean => /\{\{\s*item\./.test(column.template);
/** A column that reads a field of the output (`{{ result.output.x }}`): only completed items have one. */
const readsOutputField = (column: CsvColumn): boolean => /\{\{\s*result\.output\./.test(column.template);

/**
 * Writes the run's outputs (JSONL; CSV with JSON Schema outputs flattened to columns, each item's cost
 * and sources count; a Markdown digest a person reads, with each item's fields, answer or summary,
 * sources and cost) under `<prefix>/outputs/`, and, when asked, a change report against the previous
 * completed run. Reads the input again page by page and each item's record: nothing is held in history.
 * The JSONL and CSV files are spooled to temporary files as the items are read (once), then streamed
 * to the store, so memory stays flat whatever the number of items.
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
      columns:
        output.format === 'csv' ? csvColumnsWithTotals(output.columns ?? (definition.steps ? defaultStepColumns(definition) : {}), schema, stepSchemas) : [],
      escapeFormulas: output.escape_formulas !== false,
      /** Where a JSONL or CSV file's text goes as the items are read. */
      spool: undefined as SpoolFile | undefined,
      /** CSV rows not yet spooled. */
      rows: [] as string[][],
    };
  });
  // The digest shows the columns of its own output, else those of the first CSV, else the items' fields.
  const digestOutput = definition.outputs.find((output) => output.format === 'markdown');
  const digestColumnsDeclared = digestOutput?.columns ?? definition.outputs.find((output) => output.format === 'csv')?.columns;
  const digestColumns = digestColumnsDeclared ? csvColumns(digestColumnsDeclared, schema, stepSchemas) : undefined;
  const digestItems: DigestItem[] = [];
  const tally = emptyTally();
  const filled = files.map((file) => file.columns.map(() => 0));
  const current = new Map<string, ComparableItem>();
  const spooled = files.filter((file) => file.output.format !== 'markdown');
  const spoolDir = spooled.length > 0 ? await mkdtemp(path.join(tmpdir(), 'rp-output-spool-')) : undefined;
  try {
    for (const [index, file] of spooled.entries()) {
      file.spool = await SpoolFile.create(path.join(spoolDir!, `${index}.${file.output.format}`));
      if (file.output.format === 'csv') await file.spool.write(csvRows([file.columns.map((column) => column.header)], file));
    }
    await eachItem(store, input, async (view, value, record) => {
      const itemScope = { ...scope, item: value, result: resultScope(view), ...(view.steps ? { key: view.key, steps: stepsResultScope(view.steps) } : {}) };
      for (const [fileIndex, file] of files.entries()) {
        if (file.output.format === 'jsonl') await file.spool!.write(`${jsonlLine(view, value)}\n`);
        if (file.output.format !== 'csv') continue;
        const row = file.columns.map((column) => csvCell(column.template, itemScope));
        row.forEach((cell, column) => (filled[fileIndex]![column]! += cell === '' ? 0 : 1));
        file.rows.push(row);
        if (file.rows.length >= CSV_ROWS_HELD) await file.spool!.write(csvRows(file.rows.splice(0), file));
      }
      addToTally(tally, view);
      // A large run's digest details its first items only: the rest are counted, and kept out of memory.
      if (digestOutput && digestItems.length < MAX_DIGEST_ITEMS) digestItems.push(await digestItem(store, view, value, itemScope, digestColumns));
      if (input.compareWithPrevious) current.set(view.key, comparable(view, record?.outputs?.report?.sha256));
    });
    for (const file of files) if (file.rows.length > 0) await file.spool!.write(csvRows(file.rows.splice(0), file));

    let changes: ArtifactRef | undefined;
    if (input.compareWithPrevious) changes = await writeChangeReport(store, { pipeline: definition.name, runKey: input.runKey, prefix }, current);
    const warnings = emptyColumnWarnings(files, filled, { items: tally.items, completed: tally.byStatus.completed });
    const written: ArtifactRef[] = [];
    for (const file of files) {
      const body = file.spool
        ? await file.spool.contents()
        : markdownDigest({
            title: `${definition.name}: run ${input.runKey}`,
            ...(definition.description ? { description: definition.description } : {}),
            items: digestItems,
            tally,
            totals: input.ledger,
            warnings,
            ...(input.synthesis ? { synthesis: await synthesisText(store, input.synthesis, EMBEDDED_CHARS) } : {}),
            ...(changes ? { changes: await embeddedReport(store, changes.key, EMBEDDED_CHARS) } : {}),
          });
      written.push(await store.put(file.key, body, file.contentType));
    }
    if (input.completed) await markLatestRun(store, definition.name, { runKey: input.runKey, prefix });
    const folderUri = written[0] ? written[0].uri.slice(0, written[0].uri.length - (written[0].key.length - `${prefix}/outputs`.length)) : '';
    return {
      prefix,
      folderUri,
      files: written,
      ...(input.synthesis ? { synthesis: input.synthesis } : {}),
      ...(changes ? { changes } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  } finally {
    await Promise.all(files.flatMap((file) => (file.spool ? [file.spool.close()] : [])));
    if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
  }
}

/**
 * A warning for each CSV column that reads a field and came out empty for every item: a field the input
 * or the result does not have (what the definition could not know before the run), named with its column.
 */
function emptyColumnWarnings(
  files: ReadonlyArray<{ key: string; columns: CsvColumn[] }>,
  filled: readonly number[][],
  counted: { items: number; completed: number },
): string[] {
  return files.flatMap((file, fileIndex) =>
    file.columns.flatMap((column, index) => {
      if (filled[fileIndex]![index]! > 0) return [];
      const name = `${file.key.split('/').pop()}: column "${column.header}" (${column.template})`;
      if (readsItemField(column) && counted.items > 0) return [`${name} is empty for all ${counted.items} items: the field it names is in no item`];
      if (readsOutputField(column) && counted.completed > 0)
        return [`${name} is empty for all ${counted.completed} completed items: the field it names is in no result`];
      return [];
    }),
  );
}

/** The activity that fans a run's results in to its output files. */
export function pipelineOutputActivities({ store }: ActivityDeps) {
  return { writePipelineOutputs: (input: WritePipelineOutputsInput) => writePipelineOutputs(store, input) };
}
