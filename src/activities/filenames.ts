import { createHash } from 'node:crypto';
import path from 'node:path';
import { extension as mimeExtension, lookup } from 'mime-types';
import type { Task } from '../api';

/** Types mime-db does not name (TOON, JSON Lines). */
const OWN_TYPES: ReadonlyMap<string, string> = new Map([
  ['.toon', 'text/plain'],
  ['.jsonl', 'application/x-ndjson'],
]);
/** Text types labelled UTF-8 (the reports and notes written here); the rest come bare, as mime-db names them. */
const UTF8_TEXT = new Set(['text/markdown', 'text/plain']);

/** Deliverable types the service names by product rather than by extension. */
const DELIVERABLE_SYNONYMS: ReadonlyMap<string, string> = new Map([
  ['excel', 'xlsx'],
  ['powerpoint', 'pptx'],
  ['word', 'docx'],
]);

const MAX_NAME = 100;

/** The content type of a key from its extension (`application/octet-stream` when unknown). */
export function contentTypeOf(key: string): string {
  const extension = path.extname(key).toLowerCase();
  const type = OWN_TYPES.get(extension) ?? (lookup(extension) || 'application/octet-stream');
  return UTF8_TEXT.has(type) ? `${type}; charset=utf-8` : type;
}

/**
 * A service-supplied name made safe as one key segment: directory parts dropped, anything but letters,
 * digits, `.`, `_` and `-` replaced, no leading dot, at most 100 characters; `fallback` when nothing is left.
 */
export function safeFileName(name: string | undefined, fallback: string): string {
  const base = (name ?? '').split(/[/\\]/).pop() ?? '';
  const cleaned = base
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(-MAX_NAME);
  return cleaned && cleaned !== '.' && cleaned !== '..' ? cleaned : fallback;
}

/** An id as a key segment; ids that needed cleaning get a hash suffix so two ids never share a folder. */
export function safeSegment(id: string): string {
  const cleaned = safeFileName(id, 'item');
  if (cleaned === id) return id;
  return `${cleaned.slice(0, MAX_NAME - 9)}-${createHash('sha256').update(id).digest('hex').slice(0, 8)}`;
}

/** `name` with an extension added when it has none. */
export function withExtension(name: string, extension: string | undefined): string {
  return extension && !path.extname(name) ? `${name}${extension}` : name;
}

/**
 * The extension a deliverable should get from its declared type, if known: a product name (`excel`), an
 * extension (`xlsx`, `csv`) or a content type (`text/csv`).
 */
export function deliverableExtension(type: string | undefined): string | undefined {
  const name = type?.trim().toLowerCase();
  if (!name) return undefined;
  const extension = DELIVERABLE_SYNONYMS.get(name) ?? (/^[a-z0-9]+$/.test(name) && lookup(name) ? name : mimeExtension(name));
  return extension ? `.${extension}` : undefined;
}

/** Makes `name` unique within `taken` by adding `-2`, `-3`... before the extension; records it. */
export function uniqueName(name: string, taken: Set<string>): string {
  const extension = path.extname(name);
  const stem = name.slice(0, name.length - extension.length);
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = `${stem}-${n}${extension}`;
  taken.add(candidate);
  return candidate;
}

/** A report ready to store: file name, body and content type. */
export interface RenderedReport {
  fileName: string;
  body: string;
  contentType: string;
}

/** The task's output as a report file (`report.md`, `report.json` or `report.toon`), or undefined when it has none. */
export function renderReport(task: Pick<Task, 'output' | 'output_type'>): RenderedReport | undefined {
  const { output } = task;
  if (output === undefined) return undefined;
  const report = (fileName: string, body: string): RenderedReport => ({ fileName, body, contentType: contentTypeOf(fileName) });
  if (typeof output !== 'string') return report('report.json', `${JSON.stringify(output, null, 2)}\n`);
  // A JSON output that arrives as text is stored as sent, not re-quoted.
  if (task.output_type === 'json') return report('report.json', output);
  if (task.output_type === 'toon') return report('report.toon', output);
  return report('report.md', output);
}

/** The task's sources as pretty JSON, or undefined when it has none. */
export function renderSources(task: Pick<Task, 'sources'>): string | undefined {
  return task.sources === undefined ? undefined : `${JSON.stringify(task.sources, null, 2)}\n`;
}
