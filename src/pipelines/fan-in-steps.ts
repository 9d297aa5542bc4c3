/**
 * The outputs of `steps:` items: one column group per step in the CSV, a `steps` object per JSONL line,
 * and what templates over results see of each step (`{{ steps.profile.result.output.hq_city }}`). Pure:
 * the fan-in activity reads the records and writes what these return.
 */
import type { ComparableItem } from './change-report';
import type { PipelineDefinition } from './definition-schema';
import { sequenceSteps, type StepSpec } from './step-kind';

/** One step of one item as the outputs see it (see PipelineStepRecord for the stored shape). */
export interface ItemStepView {
  id: string;
  kind: string;
  /** `not_run`: the item stopped (failed, was cancelled) before this step. */
  status: 'completed' | 'failed' | 'cancelled' | 'skipped' | 'not_run';
  costUsd: number;
  /** A structured output (JSON), an answer's text, search or contents results; absent for Markdown reports. */
  output?: unknown;
  /** The stored result or report. */
  report?: { key: string; uri: string };
  files: Array<{ key: string; uri: string }>;
  /** How many sources the step's result cites (as an item's `sourcesCount`). */
  sourcesCount?: number;
  /** The cited sources, when the stored result holds them (an answer's search results; a report's are in its sources file). */
  sources?: Array<{ title?: string; url: string }>;
  workflowId?: string;
  error?: string;
  skippedBecause?: string;
  possiblyChargedUsd?: number;
  /** Digest of a stored report whose output is not inlined (Markdown): what a change report compares. */
  reportSha256?: string;
}

/** The part of a JSON Schema the outputs read: the properties of an object output. */
export type OutputSchema = { type?: unknown; properties?: Record<string, OutputSchema>; items?: OutputSchema };
type JsonSchema = OutputSchema;

/** The JSON Schema one step's output follows, if it has one. */
export function stepOutputSchema(step: StepSpec): JsonSchema | undefined {
  if (step.kind === 'deepresearch') {
    const schema = step.config.output_formats?.find((format) => typeof format === 'object');
    return schema;
  }
  if (step.kind === 'answer') return step.config.structured_output;
  return undefined;
}

/** Each step's output JSON Schema, by step id (DeepResearch `output_formats`, Answer `structured_output`). */
export function stepOutputSchemas(definition: Pick<PipelineDefinition, 'steps'>): Record<string, JsonSchema | undefined> {
  return Object.fromEntries(sequenceSteps(definition).map((step) => [step.id, stepOutputSchema(step)]));
}

/** The URLs of search or contents results, for a readable cell. */
function urlsOf(output: unknown): string[] | undefined {
  if (!Array.isArray(output) || !output.every((entry) => typeof (entry as { url?: unknown } | null)?.url === 'string')) return undefined;
  return output.map((entry) => (entry as { url: string }).url);
}

/**
 * What templates over an item's results see of its steps: `steps.<id>.status`, `.cost_usd`, `.error`,
 * `.skipped_because`, `.urls` (search and contents results), and `.result` (`status`, `output`,
 * `cost_usd`, `report`), the same as a step's template sees of the steps before it.
 */
export function stepsResultScope(steps: readonly ItemStepView[]): Record<string, unknown> {
  const scope: Record<string, unknown> = {};
  for (const step of steps) {
    const urls = urlsOf(step.output);
    scope[step.id] = {
      status: step.status,
      cost_usd: step.costUsd,
      ...(step.error !== undefined ? { error: step.error } : {}),
      ...(step.skippedBecause ? { skipped_because: step.skippedBecause } : {}),
      ...(urls ? { urls } : {}),
      ...(step.status === 'completed'
        ? { result: { status: step.status, output: step.output, cost_usd: step.costUsd, ...(step.report ? { report: step.report.uri } : {}) } }
        : {}),
    };
  }
  return scope;
}

/**
 * The CSV columns of a `steps:` pipeline whose CSV declares none: the item's key, status and cost, then
 * one group per step, its columns prefixed by the step id: status, cost, and its output (one column per
 * property of its JSON Schema; the URLs of search and contents results; else the output as text or JSON).
 */
export function defaultStepColumns(definition: Pick<PipelineDefinition, 'steps'>): Record<string, string> {
  const columns: Record<string, string> = { key: '{{ key }}', status: '{{ result.status }}', cost_usd: '{{ result.cost_usd }}' };
  for (const step of sequenceSteps(definition)) {
    columns[`${step.id}.status`] = `{{ steps.${step.id}.status }}`;
    columns[`${step.id}.cost_usd`] = `{{ steps.${step.id}.cost_usd }}`;
    const properties = Object.keys(stepOutputSchema(step)?.properties ?? {});
    if (properties.length > 0) for (const property of properties) columns[`${step.id}.${property}`] = `{{ steps.${step.id}.result.output.${property} }}`;
    else if (step.kind === 'search' || step.kind === 'contents') columns[`${step.id}.urls`] = `{{ steps.${step.id}.urls }}`;
    else if (step.kind === 'deepresearch' || step.kind === 'workflow') columns[`${step.id}.report`] = `{{ steps.${step.id}.result.report }}`;
    else columns[`${step.id}.output`] = `{{ steps.${step.id}.result.output }}`;
  }
  return columns;
}

/** A JSONL line's `steps` object: each step by id, in definition order. */
export function stepsJson(steps: readonly ItemStepView[]): Record<string, unknown> {
  return Object.fromEntries(
    steps.map((step) => [
      step.id,
      {
        kind: step.kind,
        status: step.status,
        cost_usd: step.costUsd,
        ...(step.possiblyChargedUsd ? { possibly_charged_usd: step.possiblyChargedUsd } : {}),
        ...(step.skippedBecause ? { skipped_because: step.skippedBecause } : {}),
        ...(step.error !== undefined ? { error: step.error } : {}),
        ...(step.output !== undefined ? { output: step.output } : {}),
        ...(step.report ? { report: step.report.uri } : {}),
        ...(step.files.length ? { files: step.files.map((file) => file.uri) } : {}),
        ...(step.workflowId ? { workflow_id: step.workflowId } : {}),
      },
    ]),
  );
}

/** What a change report compares of a step: its status, and its output or its report's digest. */
export function comparableStep(step: ItemStepView): ComparableItem {
  return {
    status: step.status,
    ...(step.output !== undefined ? { output: step.output } : step.reportSha256 ? { output: { report_sha256: step.reportSha256 } } : {}),
  };
}
