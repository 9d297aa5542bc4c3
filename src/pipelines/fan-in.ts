/**
 * The shapes of a run's output files: JSONL lines and CSV columns (JSON Schema outputs flattened); the
 * Markdown digest is `digest.ts`. Pure: the fan-in activity reads the records and writes what these return.
 */
import { parseTemplate, renderTemplate } from '../shared/template';
import type { PipelineDefinition } from './definition-schema';
import { stepOutputSchema, stepsJson, type ItemStepView, type OutputSchema } from './fan-in-steps';
import { stepSpec } from './step-kind';

/** One item's result as the outputs and templates (`result.<field>`) see it. */
export interface ItemResultView {
  key: string;
  index: number;
  status: 'completed' | 'failed' | 'cancelled' | 'not_started';
  costUsd: number;
  /** Part of `costUsd` an earlier attempt may also have been charged (see PipelineItemRecord). */
  possiblyChargedUsd?: number;
  /** A cancelled item's task that stays open at the service (see PipelineItemRecord). */
  openAtService?: { deepresearchId: string; status: string };
  attempts: number;
  error?: string;
  /** A structured output (JSON), an answer's text, search or contents results; absent for Markdown reports. */
  output?: unknown;
  /** Store key and location of the report or stored result. */
  report?: { key: string; uri: string };
  /** Further stored files (PDF, deliverables, images, sources). */
  files: Array<{ key: string; uri: string }>;
  workflowId?: string;
  /** How many sources the result cites (an answer's search results, a report's sources, a search's results). */
  sourcesCount: number;
  /** The cited sources, when the result holds them (answers and searches; a report's are in its sources file). */
  sources?: Array<{ title?: string; url: string }>;
  /** A `steps:` item: each step of the definition, in order (see fan-in-steps.ts). */
  steps?: ItemStepView[];
}

/** The fields templates over results may name (`{{ result.cost_usd }}`). */
export const RESULT_FIELDS = ['status', 'output', 'cost_usd', 'attempts', 'possibly_charged_usd', 'error', 'report', 'sources', 'sources_count'] as const;

/** Columns every CSV ends with, unless its own columns already give them: what each item cost and how many sources it cites. */
export const CSV_TOTAL_COLUMNS: Readonly<Record<string, string>> = { cost_usd: '{{ result.cost_usd }}', sources: '{{ result.sources_count }}' };

/** A CSV column: its header and the template of its cells. */
export interface CsvColumn {
  header: string;
  template: string;
}

/** The part of a JSON Schema the outputs read. */
export type JsonSchema = OutputSchema;

/** The JSON Schema the step's output follows, if it has one (DeepResearch `output_formats`, Answer `structured_output`). */
export function outputSchemaOf(definition: PipelineDefinition): JsonSchema | undefined {
  return definition.step ? stepOutputSchema(stepSpec(definition.step)) : undefined;
}

/** A template that is exactly one expression without a filter: its path, else undefined. */
function barePath(template: string): string[] | undefined {
  const expressions = parseTemplate(template);
  const [only] = expressions;
  if (expressions.length !== 1 || !only || only.filter || (template.trim() !== `{{ ${only.source} }}` && template.trim() !== `{{${only.source}}}`))
    return undefined;
  return only.path;
}

/**
 * The CSV's columns: as declared, except that a column naming an object of the output's JSON Schema
 * (`{{ result.output }}`, `{{ result.output.pricing }}`) becomes one column per property, `header.property`.
 */
export function csvColumns(
  columns: Readonly<Record<string, string>>,
  schema: JsonSchema | undefined,
  stepSchemas: Readonly<Record<string, JsonSchema | undefined>> = {},
): CsvColumn[] {
  const result: CsvColumn[] = [];
  for (const [header, template] of Object.entries(columns)) {
    const path = barePath(template);
    let node: JsonSchema | undefined = path && path[0] === 'result' && path[1] === 'output' ? schema : undefined;
    let below = path?.slice(2) ?? [];
    // A step's output (`{{ steps.profile.result.output }}`) flattens by that step's schema.
    if (path && path[0] === 'steps' && path[2] === 'result' && path[3] === 'output') [node, below] = [stepSchemas[path[1] ?? ''], path.slice(4)];
    for (const name of below) node = node?.properties?.[name];
    if (node?.properties && Object.keys(node.properties).length > 0) {
      for (const property of Object.keys(node.properties))
        result.push({ header: `${header}.${property}`, template: `{{ ${[...path!, property].join('.')} }}` });
    } else {
      result.push({ header, template });
    }
  }
  return result;
}

/** The CSV's columns followed by the cost and sources columns, each unless a declared column has its header or its template. */
export function csvColumnsWithTotals(
  columns: Readonly<Record<string, string>>,
  schema: JsonSchema | undefined,
  stepSchemas: Readonly<Record<string, JsonSchema | undefined>> = {},
): CsvColumn[] {
  const declared = csvColumns(columns, schema, stepSchemas);
  const given = (header: string, template: string): boolean =>
    declared.some((column) => column.header === header || barePath(column.template)?.join('.') === barePath(template)?.join('.'));
  return [
    ...declared,
    ...Object.entries(CSV_TOTAL_COLUMNS)
      .filter(([header, template]) => !given(header, template))
      .map(([header, template]) => ({ header, template })),
  ];
}

function lookup(scope: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = scope;
  for (const name of path) {
    if (typeof value !== 'object' || value === null || !Object.prototype.hasOwnProperty.call(value, name)) return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}

/** A cell: lists of plain values joined with "; ", objects as JSON, missing values empty. */
export function csvCell(template: string, scope: Record<string, unknown>): string {
  const path = barePath(template);
  if (!path) return renderTemplate(template, scope, { missing: 'empty' });
  const value = lookup(scope, path);
  if (value === undefined || value === null) return '';
  if (Array.isArray(value) && value.every((entry) => typeof entry !== 'object' || entry === null)) return value.map(String).join('; ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** What templates over results see: `result.status`, `result.output`, `result.cost_usd`, `result.error`, `result.report`, `result.sources`… (RESULT_FIELDS). */
export function resultScope(view: ItemResultView): Record<string, unknown> {
  return {
    status: view.status,
    output: view.output,
    cost_usd: view.costUsd,
    attempts: view.attempts,
    sources_count: view.sourcesCount,
    ...(view.sources ? { sources: view.sources.map((source) => source.url) } : {}),
    ...(view.possiblyChargedUsd ? { possibly_charged_usd: view.possiblyChargedUsd } : {}),
    ...(view.error !== undefined ? { error: view.error } : {}),
    ...(view.report ? { report: view.report.uri } : {}),
  };
}

/** One JSONL line: the item, how it ended, its output (structured or short) and where its files are. */
export function jsonlLine(view: ItemResultView, item: unknown): string {
  return JSON.stringify({
    key: view.key,
    index: view.index,
    status: view.status,
    cost_usd: view.costUsd,
    attempts: view.attempts,
    ...(view.possiblyChargedUsd ? { possibly_charged_usd: view.possiblyChargedUsd } : {}),
    ...(view.error !== undefined ? { error: view.error } : {}),
    ...(view.openAtService ? { open_at_service: { task_id: view.openAtService.deepresearchId, status: view.openAtService.status } } : {}),
    item,
    ...(view.output !== undefined ? { output: view.output } : {}),
    ...(view.report ? { report: view.report.uri } : {}),
    ...(view.files.length ? { files: view.files.map((file) => file.uri) } : {}),
    ...(view.workflowId ? { workflow_id: view.workflowId } : {}),
    ...(view.steps ? { steps: stepsJson(view.steps) } : {}),
  });
}
