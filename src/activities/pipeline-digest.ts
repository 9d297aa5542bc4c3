import { csvCell, type CsvColumn, type ItemResultView } from '../pipelines/fan-in';
import {
  ANSWER_CHARS,
  oneLine,
  reportSummary,
  shortened,
  stepSection,
  type DigestField,
  type DigestItem,
  type DigestSection,
  type DigestSource,
} from '../pipelines/digest';
import type { ItemStepView } from '../pipelines/fan-in-steps';
import { webSources } from './pipeline-item-views';
import type { ArtifactStore } from './store';

/** Most bytes of a stored report read for its summary: the summary sits at its start. */
const SUMMARY_BYTES = 64 * 1024;
/** Input fields shown for an item when the definition names no columns. */
const ITEM_FIELDS_SHOWN = 8;

/** A stored text file's start, decoded (a cut multi-byte character at the end is dropped). */
export async function readTextStart(store: ArtifactStore, key: string, bytes = SUMMARY_BYTES): Promise<string> {
  const data = await store.get(key);
  return Buffer.from(data.subarray(0, bytes))
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}

const shown = oneLine;

const plainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where a column's template reads from: the item, the result's output, or the result's other fields. */
function columnSource(column: CsvColumn): 'item' | 'output' | 'result' {
  if (/\{\{\s*result\.output\b/.test(column.template)) return 'output';
  return /\{\{\s*result\b/.test(column.template) ? 'result' : 'item';
}

/**
 * One item of the digest: its key fields (the output columns over the item, else its input fields), and
 * one section for its result with the answer or the report's summary, the output's fields and the sources.
 */
export async function digestItem(
  store: ArtifactStore,
  view: ItemResultView,
  value: unknown,
  scope: Record<string, unknown>,
  columns: readonly CsvColumn[] | undefined,
): Promise<DigestItem> {
  let fields: DigestField[];
  let outputFields: DigestField[];
  if (columns) {
    const cells = (from: 'item' | 'output'): DigestField[] =>
      columns
        .filter((column) => columnSource(column) === from)
        .map((column) => ({ name: column.header, value: shortened(csvCell(column.template, scope), 300) }));
    fields = cells('item');
    outputFields = cells('output');
  } else {
    fields = plainObject(value)
      ? Object.entries(value)
          .slice(0, ITEM_FIELDS_SHOWN)
          .map(([name, entry]) => ({ name, value: shown(entry) }))
      : [{ name: 'item', value: shown(value) }];
    outputFields = plainObject(view.output) ? Object.entries(view.output).map(([name, entry]) => ({ name, value: shown(entry) })) : [];
  }
  let sections: DigestSection[];
  if (view.steps) {
    // A steps: item: one section per step, in definition order.
    sections = [];
    for (const step of view.steps) sections.push(await stepDigestSection(store, step));
  } else {
    const section: DigestSection = { fields: outputFields, sources: view.sources ?? [], sourcesCount: view.sourcesCount, costUsd: view.costUsd };
    if (typeof view.output === 'string') section.answer = shortened(view.output, ANSWER_CHARS);
    else if (view.output === undefined && view.report && view.status === 'completed')
      section.answer = reportSummary(await readTextStart(store, view.report.key));
    if (!view.sources && view.sourcesCount > 0) section.sources = await storedSources(store, view.files);
    sections = [section];
  }
  return {
    key: view.key,
    status: view.status,
    costUsd: view.costUsd,
    fields,
    sections,
    ...(view.possiblyChargedUsd ? { possiblyChargedUsd: view.possiblyChargedUsd } : {}),
    ...(view.error !== undefined ? { error: view.error } : {}),
  };
}

/**
 * The digest's section for one step: a report's summary read from the store, and the sources an answer
 * or a report cites, from its view or its sources file (a search's are its output).
 */
async function stepDigestSection(store: ArtifactStore, step: ItemStepView): Promise<DigestSection> {
  if (step.status !== 'completed') return stepSection(step);
  const found: { summary?: string; sources?: DigestSource[] } = {};
  if (step.output === undefined && step.report) found.summary = reportSummary(await readTextStart(store, step.report.key));
  const searchResults = Array.isArray(step.output);
  // An answer's sources came with its view (from its stored result); a report's are in its sources file.
  if (!searchResults && (step.sourcesCount ?? 0) > 0) found.sources = step.sources ?? (await storedSources(store, step.files));
  return stepSection(step, found);
}

/** A research task's stored sources file (`sources.json`), as sources. */
async function storedSources(store: ArtifactStore, files: ReadonlyArray<{ key: string }>): Promise<DigestSource[]> {
  const file = files.find((entry) => entry.key.endsWith('/sources.json'));
  if (!file) return [];
  try {
    return webSources(JSON.parse(Buffer.from(await store.get(file.key)).toString('utf8')));
  } catch {
    return []; // an unreadable sources file leaves the count, not the list
  }
}

/** A stored Markdown report's text for the digest: its title line left out, its headings one level down, about `limit` characters. */
export async function embeddedReport(store: ArtifactStore, key: string, limit: number): Promise<string> {
  const text = (await readTextStart(store, key, limit * 4)).replace(/^# .*\n+/, '');
  const lines = shortened(text, limit)
    .split('\n')
    .map((line) => (/^#{1,5}\s/.test(line) ? `#${line}` : line));
  return lines.join('\n');
}

/** The synthesis for the digest: a report's text, or an Answer synthesis's answer (stored as JSON with its sources). */
export async function synthesisText(store: ArtifactStore, ref: { key: string; contentType: string }, limit: number): Promise<string> {
  if (!ref.contentType.startsWith('application/json')) return embeddedReport(store, ref.key, limit);
  const stored = JSON.parse(Buffer.from(await store.get(ref.key)).toString('utf8')) as { output?: unknown };
  const output = typeof stored.output === 'string' ? stored.output : JSON.stringify(stored.output ?? null, null, 2);
  return shortened(output, limit);
}
