import { contentType as mimeContentType } from 'mime-types';
import type { TaskRecord } from './task-record';
import type { GeneratedSource } from './content/sources';
import { findingsOf } from './content/findings';
import { seededRandom } from './content/rng';
import { topicOf } from './content/topic';
import { isDeliverableType, type DeliverableType } from './deliverables';
import { barChartPng } from './files/png';
import { textPdf } from './files/pdf';
import { toCsv } from './files/csv';
import { docx, xlsx } from './files/ooxml';
import { pptx } from './files/pptx';

/** A generated file of a completed task, served at `.../assets/{id}`. */
export interface TaskFile {
  id: string;
  kind: 'image' | 'deliverable' | 'pdf';
  type: string;
  title: string;
  description?: string;
  filename: string;
  /** From the file name's extension. */
  contentType: string;
  /** The file's bytes, rendered on first use: a status read needs only names and links. */
  bytes(): Uint8Array;
  width?: number;
  height?: number;
}

/** The asset id of the PDF rendering of the report. */
export const PDF_ASSET_ID = 'report-pdf';

/** Generates a completed task's images, deliverables and (when asked) its PDF report. */
export function generateFiles(task: TaskRecord, report: string, sources: readonly GeneratedSource[]): Map<string, TaskFile> {
  const files = new Map<string, TaskFile>();
  const add = (file: Omit<TaskFile, 'contentType'>): void =>
    void files.set(file.id, { ...file, contentType: mimeContentType(file.filename) || 'application/octet-stream' });
  const topic = topicOf(task.query);
  const random = seededRandom(task.seed, 9);
  const chartCount = task.config.tools.charts ? 2 : 1;
  for (let index = 1; index <= chartCount; index++) {
    const values = Array.from({ length: 6 }, () => 0.15 + random.next() * 0.85);
    add({
      id: `image-${index}`,
      kind: 'image',
      type: 'chart',
      title: `${topic.keywords.slice(0, 2).join(' ')}: figure ${index}`,
      filename: `chart-${index}.png`,
      bytes: lazy(() => barChartPng(values)),
      width: 480,
      height: 280,
    });
  }
  if (task.config.tools.screenshots) {
    add({
      id: 'screenshot-1',
      kind: 'image',
      type: 'screenshot',
      title: `Screenshot of ${sources[0]?.domain ?? 'a source'}`,
      filename: 'screenshot-1.png',
      bytes: lazy(() => barChartPng([0.3, 0.5, 0.4], 640, 400, [240, 240, 240])),
      width: 640,
      height: 400,
    });
  }
  if (task.config.outputFormats.includes('pdf')) {
    add({ id: PDF_ASSET_ID, kind: 'pdf', type: 'pdf', title: topic.title, filename: `${topic.slug}.pdf`, bytes: lazy(() => textPdf(topic.title, report)) });
  }
  const rows = tableRows(task, sources);
  task.config.deliverables.forEach((spec, index) => {
    const type = spec.type;
    if (!isDeliverableType(type)) return;
    const title = spec.description.length > 80 ? `${spec.description.slice(0, 77)}...` : spec.description;
    const bytes = lazy(() => render(type, title, report, rows, task, sources));
    add({
      id: `deliverable-${index + 1}`,
      kind: 'deliverable',
      type,
      title,
      description: spec.description,
      filename: `${topic.slug}-${index + 1}.${type}`,
      bytes,
    });
  });
  return files;
}

function lazy(make: () => Uint8Array): () => Uint8Array {
  let made: Uint8Array | undefined;
  return () => (made ??= make());
}

function tableRows(task: TaskRecord, sources: readonly GeneratedSource[]): (string | number)[][] {
  const header = ['#', 'Finding', 'Detail', 'Source', 'URL', 'Published'];
  const rows = findingsOf(task, sources).map((finding, index) => {
    const source = sources[(finding.citations[0] ?? 1) - 1];
    return [index + 1, finding.heading, finding.text, source?.title ?? '', source?.url ?? '', source?.publication_date ?? ''];
  });
  return [header, ...rows];
}

function render(
  type: DeliverableType,
  title: string,
  report: string,
  rows: (string | number)[][],
  task: TaskRecord,
  sources: readonly GeneratedSource[],
): Uint8Array {
  switch (type) {
    case 'csv':
      return Buffer.from(toCsv(rows), 'utf8');
    case 'xlsx':
      return xlsx(rows);
    case 'docx':
      return docx(
        title,
        report.split('\n').filter((line) => line.trim() !== ''),
      );
    case 'pdf':
      return textPdf(title, report);
    case 'pptx':
      return pptx([
        { title, bullets: [topicOf(task.query).title, `${sources.length} sources, ${task.config.mode} mode`] },
        ...findingsOf(task, sources)
          .slice(0, 8)
          .map((finding) => ({ title: finding.heading, bullets: [finding.text] })),
      ]);
  }
}
