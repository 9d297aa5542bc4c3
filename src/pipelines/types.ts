/**
 * Plain-JSON types of pipeline runs, for workflow code to import with `import type` (no zod, no Node
 * at run time). The definition types come from the zod schema by `z.infer`, so they cannot drift.
 */
export type { PipelineDefinition, PipelineDefinitionInput } from './definition-schema';
export type { ParameterSpec, ParameterType, ParameterValue } from './parameter-schema';
import type { ParameterValue } from './parameter-schema';
export type { StepKind } from './step-schema';

/** Where a run's items come from, with file paths made absolute: small enough to keep in workflow state. */
export type ItemSource =
  | { kind: 'inline'; items: unknown[] }
  | { kind: 'csv'; path: string; delimiter?: string }
  | { kind: 'jsonl'; path: string }
  /** No `input`: one empty item keyed `single` (a report an app event asks for). */
  | { kind: 'single' };

/** Size and modification time of an input file when a run started paging through it. */
export interface FileFingerprint {
  size: number;
  mtimeMs: number;
}

/**
 * Where the next page of items starts. A workflow holds this instead of the items: the byte offset lets
 * an activity resume a 10,000-row file without reading what it already read.
 */
export interface ItemCursor {
  /** Items read so far (0-based index of the next item). */
  index: number;
  /** Byte offset of the next record in the file (0 for inline items). */
  byteOffset: number;
  /** Lines consumed so far, so errors name real line numbers. */
  line: number;
  /** CSV header, read once on the first page. */
  columns?: string[];
  /** The file as the first page saw it; a later page refuses a changed file. */
  fingerprint?: FileFingerprint;
}

/** One item as read: its 0-based index, where it was written (for errors), and its value. */
export interface SourceItem {
  index: number;
  /** `data/companies.csv:14`, or `item 3` for inline items. */
  where: string;
  value: unknown;
}

/** An item with its rendered key (unique in the run; safe in a workflow id). */
export interface KeyedItem extends SourceItem {
  key: string;
}

/** One page of items and where the next page starts. */
export interface ItemPage<T extends SourceItem = SourceItem> {
  items: T[];
  cursor: ItemCursor;
  /** No items are left after this page (a page may be empty and done). */
  done: boolean;
  /** Bytes read from the file for this page (bounded by the page, not the file). */
  bytesRead: number;
}

/** Values templates can use besides `item`: the run's parameters, the pipeline and the run. */
export interface RunContext {
  params: Record<string, ParameterValue>;
  pipeline: { name: string };
  /** `key`: the run key (schedule slot or app-event idempotency key); `date`: the run's start date, YYYY-MM-DD. */
  run: { key: string; date: string };
}

/** Estimated cost of an item or a run, from the spec's prices, with the calls it makes. */
export interface CostEstimate {
  /** USD the spec's fixed prices give (DeepResearch per task by mode, Answer per request, Contents per URL). */
  usd: number;
  /** Upper bound where the request caps variable costs (Answer `data_max_price`, Search `max_price`); else `usd`. */
  maxUsd: number;
  /** Requests by route, e.g. `POST /v1/deepresearch/tasks`: 12. */
  calls: Record<string, number>;
  /** What the figures leave out (tool surcharges, AI costs the spec does not price). */
  notes: string[];
  /** The service's price has no upper bound for this request (an uncapped Search). */
  unbounded?: boolean;
}
