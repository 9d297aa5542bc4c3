import { csvCell, type CsvColumn, type ItemResultView } from '../pipelines/fan-in';
import { ANSWER_CHARS, reportSummary, shortened, type DigestField, type DigestItem, type DigestSection, type DigestSource } from '../pipelines/digest';
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

/** A value as a person reads it in one line: lists of plain values joined, objects as JSON. */
function shown(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value) && value.every((entry) => typeof entry !== 'object' || entry === null)) return value.map(String).join('; ');
  return shortened(typeof value === 'object' ? JSON.stringify(value) : String(value), 300);
}

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
  const section: DigestSection = { fields: outputFields, sources: view.sources ?? [], sourcesCount: view.sourcesCount, costUsd: view.costUsd };
  if (typeof view.output === 'string') section.answer = shortened(view.output, ANSWER_CHARS);
  else if (view.output === undefined && view.report && view.status === 'completed') section.answer = reportSummary(await readTextStart(store, view.report.key));
  if (!view.sources && view.sourcesCount > 0) section.sources = await storedSources(store, view);
  return {
    key: view.key,
    status: view.status,
    costUsd: view.costUsd,
    fields,
    sections: [section],
    ...(view.possiblyChargedUsd ? { possiblyChargedUsd: view.possiblyChargedUsd } : {}),
    ...(view.error !== undefined ? { error: view.error } : {}),
  };
}

/** A research task's stored sources file (`sources.json`), as sources. */
async function storedSources(store: ArtifactStore, view: ItemResultView): Promise<DigestSource[]> {
  const file = view.files.find((entry) => entry.key.endsWith('/sources.json'));
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
