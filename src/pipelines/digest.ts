/**
 * The run's digest: a Markdown report a person reads and passes on. Each item shows its key fields, the
 * answer or the report's summary, its sources and its cost; the run's totals come first. It holds no
 * link to the worker's disk (only the sources' own web addresses), so it reads the same once sent on.
 * Pure: the fan-in activity gathers the parts and writes what this returns.
 */
import type { ItemStepView } from './fan-in-steps';

/** A source a result cites: a web address and its title. */
export interface DigestSource {
  title?: string;
  url: string;
}

/** A name and a value, as a person reads them. */
export interface DigestField {
  name: string;
  value: string;
}

/** One part of an item's result: the one step of a run, or one of several (then `label` names it). */
export interface DigestSection {
  label?: string;
  /** How a step of a `steps:` item ended; absent for a one-step item (the item's status says it). */
  status?: ItemStepView['status'];
  /** Why a step was skipped (its `when:` did not hold). */
  skippedBecause?: string;
  /** Why a step failed. */
  error?: string;
  /** Fields of a structured output (or the columns over it). */
  fields: DigestField[];
  /** An answer's text, or the summary of a report (Markdown from the service). */
  answer?: string;
  sources: DigestSource[];
  sourcesCount: number;
  costUsd: number;
}

/** One item of the digest. */
export interface DigestItem {
  key: string;
  status: 'completed' | 'failed' | 'cancelled' | 'not_started';
  costUsd: number;
  possiblyChargedUsd?: number;
  error?: string;
  /** The item's own fields worth reading first (the output columns over the item, or its input fields). */
  fields: DigestField[];
  sections: DigestSection[];
}

/** The run's figures over all its items, also those past the digest's detailed list. */
export interface DigestTally {
  items: number;
  byStatus: Record<DigestItem['status'], number>;
  costOfCompletedUsd: number;
  sources: number;
}

/** An empty tally. */
export function emptyTally(): DigestTally {
  return { items: 0, byStatus: { completed: 0, failed: 0, cancelled: 0, not_started: 0 }, costOfCompletedUsd: 0, sources: 0 };
}

/** Counts one item into `tally`. */
export function addToTally(tally: DigestTally, item: { status: DigestItem['status']; costUsd: number; sourcesCount: number }): void {
  tally.items += 1;
  tally.byStatus[item.status] += 1;
  if (item.status === 'completed') tally.costOfCompletedUsd += item.costUsd;
  tally.sources += item.sourcesCount;
}

/** Items shown in detail; a larger run's digest counts the rest in its totals and points to the CSV and JSONL. */
export const MAX_DIGEST_ITEMS = 1_000;

const STEP_STATUS: Record<ItemStepView['status'], string> = {
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  skipped: 'skipped',
  not_run: 'not run: the item stopped before this step',
};

/**
 * The section of one step of a `steps:` item, labelled with its id and kind: its status (or why it was
 * skipped, or its error), its cost, and what it found: a structured output's fields, an answer's text, a
 * search's or contents call's results (as its sources, titles and links) or, given as `summary`, the
 * summary of its report. `sources` are those the step cites when its output does not hold them (an
 * answer's search results, a report's sources file).
 */
export function stepSection(step: ItemStepView, found: { summary?: string; sources?: DigestSource[] } = {}): DigestSection {
  const section: DigestSection = {
    label: `${step.id} · ${step.kind}`,
    status: step.status,
    fields: [],
    sources: found.sources ?? [],
    sourcesCount: step.sourcesCount ?? found.sources?.length ?? 0,
    costUsd: step.costUsd,
    ...(step.skippedBecause ? { skippedBecause: step.skippedBecause } : {}),
    ...(step.error !== undefined ? { error: step.error } : {}),
  };
  const { output } = step;
  if (typeof output === 'string') section.answer = shortened(output, ANSWER_CHARS);
  else if (Array.isArray(output) && output.every((entry) => typeof (entry as { url?: unknown } | null)?.url === 'string')) {
    // Search and contents results: the pages found are what the step cites.
    section.sources = output.map((entry) => {
      const { url, title } = entry as { url: string; title?: unknown };
      return { url, ...(typeof title === 'string' && title ? { title } : {}) };
    });
    section.sourcesCount = Math.max(section.sources.length, step.sourcesCount ?? 0);
  } else if (typeof output === 'object' && output !== null && !Array.isArray(output))
    section.fields = Object.entries(output).map(([name, value]) => ({ name, value: oneLine(value) }));
  else if (output !== undefined) section.fields = [{ name: 'output', value: oneLine(output) }];
  if (output === undefined && found.summary !== undefined && step.status === 'completed') section.answer = found.summary;
  return section;
}

/** A value as a person reads it in one line: lists of plain values joined, objects as JSON. */
export function oneLine(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value) && value.every((entry) => typeof entry !== 'object' || entry === null)) return value.map(String).join('; ');
  return shortened(typeof value === 'object' ? JSON.stringify(value) : String(value), 300);
}

/** What the digest is made of. */
export interface DigestInput {
  title: string;
  description?: string;
  /** The items shown in detail, in input order. */
  items: readonly DigestItem[];
  /** Figures over every item of the run; without it, over `items`. */
  tally?: DigestTally;
  totals: { spentUsd: number; budgetUsd: number };
  /** The synthesis report's text (Markdown). */
  synthesis?: string;
  /** The change report's text (Markdown, its own title left out). */
  changes?: string;
  /** Problems of the outputs a reader should know (a column empty for every item). */
  warnings?: readonly string[];
}

/** Sources listed per section; the rest are counted. */
export const SOURCES_SHOWN = 5;
/** Longest answer or summary kept per section, in characters. */
export const ANSWER_CHARS = 1_200;

/** Text from an item or a result, shown literally: the characters that make Markdown or HTML escaped (no link or image can form without `[`), one line. */
export function literal(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\`*_[\]<>#|~&]/g, (char) => (char === '&' ? '&amp;' : char === '<' ? '&lt;' : char === '>' ? '&gt;' : `\\${char}`));
}

/** Markdown written by the service (an answer, a report), quoted; raw HTML in it is shown, never run, and images stay links' text (a viewer would fetch them). */
function quoted(markdown: string): string[] {
  return markdown
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/!\[/g, '!\\[')
    .trim()
    .split('\n')
    .map((line) => (line.trim() ? `> ${line}` : '>'));
}

/** A link to a web page, or the plain text when the address is not http(s) or cannot be written safely. */
function sourceLink(source: DigestSource): string {
  const title = literal(source.title?.trim() || source.url);
  if (!/^https?:\/\/[^\s<>]+$/i.test(source.url)) return title;
  return `[${title}](<${source.url}>)`;
}

const usd = (value: number): string => `${value.toFixed(4)} USD`;

/** Text cut at a word boundary near `limit` characters, with an ellipsis when cut. */
export function shortened(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit);
  const space = cut.lastIndexOf(' ');
  return `${(space > limit * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * The summary of a Markdown report: the section titled summary, overview or key findings when there is
 * one, else the first paragraphs after the title, about `limit` characters.
 */
export function reportSummary(markdown: string, limit = ANSWER_CHARS): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const titled = lines.findIndex((line) => /^#{1,6}\s+.*\b(summary|overview|key findings|tl;?dr)\b/i.test(line));
  const body = titled >= 0 ? lines.slice(titled + 1) : lines;
  const paragraphs: string[] = [];
  let current: string[] = [];
  for (const line of body) {
    if (/^#{1,6}\s/.test(line)) {
      if (current.length) paragraphs.push(current.join('\n'));
      current = [];
      // A summary section ends at the next heading; without one, headings between paragraphs are skipped.
      if (titled >= 0 && paragraphs.length > 0) break;
      continue;
    }
    if (!line.trim()) {
      if (current.length) paragraphs.push(current.join('\n'));
      current = [];
      continue;
    }
    current.push(line);
  }
  if (current.length) paragraphs.push(current.join('\n'));
  let summary = '';
  for (const paragraph of paragraphs) {
    if (summary && summary.length + paragraph.length > limit) break;
    summary = summary ? `${summary}\n\n${paragraph}` : paragraph;
  }
  return shortened(summary, limit);
}

function fieldLines(fields: readonly DigestField[]): string[] {
  return fields.filter((field) => field.value !== '').map((field) => `- **${literal(field.name)}**: ${literal(field.value)}`);
}

function sectionLines(section: DigestSection, several: boolean): string[] {
  const lines: string[] = [];
  if (several) lines.push(`#### ${literal(section.label ?? '')} (${usd(section.costUsd)})`, '');
  if (section.status) {
    const why = section.status === 'skipped' ? section.skippedBecause : section.error;
    lines.push(`*${STEP_STATUS[section.status]}*${why ? `: ${literal(shortened(why, 300))}` : ''}`, '');
    // A step that found nothing (skipped, not run, failed) has no sources to list.
    if (section.status !== 'completed' && section.sourcesCount === 0 && !section.answer && section.fields.length === 0) return lines;
  }
  if (section.answer?.trim()) lines.push(...quoted(section.answer), '');
  const fields = fieldLines(section.fields);
  if (fields.length) lines.push(...fields, '');
  if (section.sourcesCount > 0) {
    const shown = section.sources.slice(0, SOURCES_SHOWN).map(sourceLink);
    const more = section.sourcesCount - shown.length;
    if (shown.length === 0) lines.push(`Sources: ${section.sourcesCount}`, '');
    else lines.push(`Sources (${section.sourcesCount}): ${shown.join(' · ')}${more > 0 ? ` and ${more} more` : ''}`, '');
  } else {
    lines.push('Sources: none', '');
  }
  return lines;
}

/** The digest as Markdown: title, totals, warnings, synthesis, one section per item, changes. */
export function markdownDigest(input: DigestInput): string {
  let tally = input.tally;
  if (!tally) {
    tally = emptyTally();
    for (const item of input.items) addToTally(tally, { ...item, sourcesCount: item.sections.reduce((sum, section) => sum + section.sourcesCount, 0) });
  }
  const { byStatus } = tally;
  const completed = byStatus.completed;
  const lines = [`# ${literal(input.title)}`, ''];
  if (input.description) lines.push(literal(input.description), '');
  lines.push(
    `**${tally.items} items**: ${completed} completed, ${byStatus.failed} failed, ${byStatus.cancelled} cancelled, ${byStatus.not_started} not started.`,
    '',
    `**Cost**: ${input.totals.spentUsd.toFixed(4)} of ${input.totals.budgetUsd.toFixed(2)} USD spent${completed > 0 ? `, ${usd(tally.costOfCompletedUsd / completed)} per completed item on average` : ''}. **Sources cited**: ${tally.sources}.`,
    '',
  );
  for (const warning of input.warnings ?? []) lines.push(`> **Warning**: ${literal(warning)}`, '');
  if (input.synthesis?.trim()) lines.push('## Synthesis', '', ...quoted(input.synthesis), '');
  lines.push('## Items', '');
  input.items.forEach((item, index) => {
    const extra = item.possiblyChargedUsd ? ` (of which ${usd(item.possiblyChargedUsd)} may have been charged twice)` : '';
    lines.push(`### ${index + 1}. ${literal(item.key)}`, '', `*${item.status.replace('_', ' ')}* · ${usd(item.costUsd)}${extra}`, '');
    const fields = fieldLines(item.fields);
    if (fields.length) lines.push(...fields, '');
    if (item.error) lines.push(`**Error**: ${literal(shortened(item.error, 300))}`, '');
    const several = item.sections.length > 1 || item.sections.some((section) => section.label !== undefined);
    for (const section of item.sections) lines.push(...sectionLines(section, several));
  });
  const rest = tally.items - input.items.length;
  if (rest > 0)
    lines.push(`*${rest} more item${rest === 1 ? '' : 's'} past the first ${input.items.length}: their results are in the run's CSV and JSONL outputs.*`, '');
  if (input.changes?.trim()) lines.push('## Changes since the previous run', '', ...input.changes.trim().replace(/</g, '&lt;').split('\n'), '');
  return `${lines.join('\n').trimEnd()}\n`;
}
