import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Task } from '../api';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.md': 'text/markdown; charset=utf-8',
  '.json': 'application/json',
  '.toon': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.csv': 'text/csv',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

/** Extensions for the deliverable types the service names (CSV, Excel, PowerPoint, Word, PDF). */
const DELIVERABLE_EXTENSIONS: Readonly<Record<string, string>> = {
  csv: '.csv', excel: '.xlsx', xlsx: '.xlsx', powerpoint: '.pptx', pptx: '.pptx', word: '.docx', docx: '.docx', pdf: '.pdf',
};

const MAX_NAME = 100;
const JSON_TYPE = 'application/json';
const TEXT_TYPE = 'text/plain; charset=utf-8';
const MARKDOWN_TYPE = 'text/markdown; charset=utf-8';

/** The content type of a key from its extension (`application/octet-stream` when unknown). */
export function contentTypeOf(key: string): string {
  return CONTENT_TYPES[path.extname(key).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * A service-supplied name made safe as one key segment: directory parts dropped, anything but letters,
 * digits, `.`, `_` and `-` replaced, no leading dot, at most 100 characters; `fallback` when nothing is left.
 */
export function safeFileName(name: string | undefined, fallback: string): string {
  const base = (name ?? '').split(/[/\\]/).pop() ?? '';
  const cleaned = base.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(-MAX_NAME);
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

/** The extension a deliverable should get from its declared type, if known. */
export function deliverableExtension(type: string | undefined): string | undefined {
  return type ? DELIVERABLE_EXTENSIONS[type.toLowerCase()] : undefined;
}

/** The usual extension of a content type (`image/png` -> `.png`), if this module knows it. */
export function extensionForContentType(contentType: unknown): string | undefined {
  if (typeof contentType !== 'string') return undefined;
  const bare = contentType.split(';')[0]?.trim().toLowerCase();
  return Object.entries(CONTENT_TYPES).find(([, type]) => type.split(';')[0] === bare)?.[0];
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
  if (typeof output !== 'string') {
    return { fileName: 'report.json', body: `${JSON.stringify(output, null, 2)}\n`, contentType: JSON_TYPE };
  }
  // A JSON output that arrives as text is stored as sent, not re-quoted.
  if (task.output_type === 'json') return { fileName: 'report.json', body: output, contentType: JSON_TYPE };
  if (task.output_type === 'toon') return { fileName: 'report.toon', body: output, contentType: TEXT_TYPE };
  return { fileName: 'report.md', body: output, contentType: MARKDOWN_TYPE };
}

/** The task's sources as pretty JSON, or undefined when it has none. */
export function renderSources(task: Pick<Task, 'sources'>): string | undefined {
  return task.sources === undefined ? undefined : `${JSON.stringify(task.sources, null, 2)}\n`;
}
