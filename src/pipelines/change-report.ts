/**
 * What changed between two runs of one pipeline: items new, removed and changed, field by field for
 * structured outputs. Pure (no I/O), so the rules are unit tested; an activity loads the two runs.
 */

/** One item of a run as the comparison sees it. */
export interface ComparableItem {
  status: string;
  /** A structured output (JSON object), text, or a digest of a stored report. */
  output?: unknown;
  /** A `steps:` item: each step's status and output (or report digest), by step id. */
  steps?: Record<string, ComparableItem>;
}

/** One field that differs, by dotted path (`pricing.plan`, `products[2]`). */
export interface FieldChange {
  path: string;
  before?: unknown;
  after?: unknown;
}

/** The change report. */
export interface ChangeReport {
  previousRun: string;
  currentRun: string;
  added: string[];
  removed: string[];
  changed: Array<{ key: string; fields: FieldChange[] }>;
  unchanged: number;
}

const MAX_FIELDS = 50;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every leaf that differs between two JSON values, by path (at most 50 per item). */
export function diffFields(before: unknown, after: unknown, path = '', into: FieldChange[] = []): FieldChange[] {
  if (into.length >= MAX_FIELDS) return into;
  if (isObject(before) && isObject(after)) {
    for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      diffFields(before[key], after[key], path ? `${path}.${key}` : key, into);
    }
    return into;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.every((entry) => !isObject(entry)) && after.every((entry) => !isObject(entry))) {
    // Lists of plain values (products, tickers) read best as what came and went.
    const gone = before.filter((entry) => !after.some((other) => JSON.stringify(other) === JSON.stringify(entry)));
    const came = after.filter((entry) => !before.some((other) => JSON.stringify(other) === JSON.stringify(entry)));
    if (gone.length > 0 || came.length > 0)
      into.push({ path: path || '(output)', ...(gone.length ? { before: gone } : {}), ...(came.length ? { after: came } : {}) });
    return into;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) {
    into.push({ path: path || '(output)', ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) });
  }
  return into;
}

/** Compares two runs' items by key. */
export function compareRuns(
  previous: { run: string; items: ReadonlyMap<string, ComparableItem> },
  current: { run: string; items: ReadonlyMap<string, ComparableItem> },
): ChangeReport {
  const report: ChangeReport = { previousRun: previous.run, currentRun: current.run, added: [], removed: [], changed: [], unchanged: 0 };
  for (const [key, item] of current.items) {
    const before = previous.items.get(key);
    if (!before) {
      report.added.push(key);
      continue;
    }
    const fields = before.status === item.status ? [] : [{ path: 'status', before: before.status, after: item.status }];
    diffFields(before.output, item.output, 'output', fields);
    // Steps compare step by step, field by field: `steps.profile.output.headcount`, `steps.deep.status`.
    if (before.steps || item.steps) diffFields(before.steps ?? {}, item.steps ?? {}, 'steps', fields);
    if (fields.length > 0) report.changed.push({ key, fields });
    else report.unchanged += 1;
  }
  for (const key of previous.items.keys()) if (!current.items.has(key)) report.removed.push(key);
  report.added.sort();
  report.removed.sort();
  report.changed.sort((a, b) => a.key.localeCompare(b.key));
  return report;
}

const shown = (value: unknown): string => {
  const text = value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value);
  return (text.length > 120 ? `${text.slice(0, 117)}...` : text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
};

/** The change report as Markdown. */
export function formatChangeReport(report: ChangeReport, pipeline: string): string {
  const lines = [
    `# ${pipeline}: changes since run ${report.previousRun}`,
    '',
    `Run ${report.currentRun}: ${report.added.length} new, ${report.removed.length} removed, ${report.changed.length} changed, ${report.unchanged} unchanged.`,
    '',
  ];
  if (report.added.length) lines.push('## New', '', ...report.added.map((key) => `- ${key}`), '');
  if (report.removed.length) lines.push('## Removed', '', ...report.removed.map((key) => `- ${key}`), '');
  if (report.changed.length) {
    lines.push('## Changed', '');
    for (const { key, fields } of report.changed) {
      lines.push(
        `### ${key}`,
        '',
        '| field | before | after |',
        '| --- | --- | --- |',
        ...fields.map((field) => `| ${field.path} | ${shown(field.before)} | ${shown(field.after)} |`),
        '',
      );
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
