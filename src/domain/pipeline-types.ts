/** Inputs, state and results of the pipeline run workflow: plain JSON, shared with clients by `import type`. */
import type { ArtifactRef, StoredOutputs } from './artifacts';
import type { ItemRequest } from '../pipelines/render-item';
import type { ItemCursor, ItemSource, ParameterValue, PipelineDefinition, StepKind } from '../pipelines/types';
import type { PollingOverrides, ResearchTaskResult } from './research-types';

/** Parameter values of one run, resolved against the definition's declarations. */
export type RunParams = Record<string, ParameterValue>;

/** `pipelineRunWorkflow` input. */
export interface PipelineRunInput {
  /** The validated definition (defaults applied). */
  definition: PipelineDefinition;
  /** Where items come from, file paths absolute on the worker's machine. */
  source: ItemSource;
  params: RunParams;
  /**
   * The run key (app-event idempotency key, or a chosen name). Unset for scheduled runs: the key is
   * then the rest of the workflow id after `pipeline-run/<pipeline>/`, which the schedule makes unique per fire.
   */
  runKey?: string;
  /** Compare the results with the previous completed run of the same pipeline (scheduled runs do). */
  compareWithPrevious?: boolean;
  /** Receivers of the run's notifications besides the definition's `notify:` (an app event's `notify` or `callback_url`). */
  notify?: string[];
  /** Poll delays handed to each item's research task workflow (a sped-up emulator wants shorter ones). */
  polling?: PollingOverrides;
  /** Items read per page (default: twice the concurrency, 20 to 200). */
  pageSize?: number;
  /** History length after which the run drains its window and continues as new (default 5,000). */
  continueAsNewAfterEvents?: number;
  /** Continued-as-new state; callers leave it unset. */
  carried?: PipelineRunCarried;
}

/** One item as the run plans it: its key, where it came from, its rendered request and the price to reserve. */
export interface PlannedItem {
  key: string;
  index: number;
  where: string;
  /** The rendered request; absent when the item cannot run (`problem` says why). */
  request?: ItemRequest;
  /** Why the item cannot run (a missing template variable, a bad key): it fails without spending. */
  problem?: string;
  /** USD reserved from the budget before the item starts (the spec's price, or the request's cap). */
  reserveUsd: number;
  /**
   * The service's price for the request has no upper bound (a Search without max_price and an integer
   * response_length): the run reserves twice the dearest such item seen so far, and starts one at a
   * time until it has seen one (see `reserveFor`).
   */
  priceUnbounded?: boolean;
  /** An earlier execution of this run finished the item: it counts as done and is not run again. */
  done?: { status: ItemStatus; costUsd: number };
  /** Attempts made so far (a retried item carries its count). */
  attempts?: number;
  /**
   * USD earlier attempts of this run may have been charged without a result (an answer lost after it was
   * sent): counted in the ledger when they failed, and in the item's record (cost and possibly charged) when it ends.
   */
  possiblyChargedUsd?: number;
  /**
   * How many earlier executions of this run key left the item cancelled: its research task workflow ran
   * (and completed, cancelled) under the plain id, so a resumed run starts it under `~<generation>`.
   */
  generation?: number;
  /** A task an earlier execution left open at the service (see PipelineItemRecord.openAtService): followed, not created again. */
  existingTask?: string;
  /**
   * The item runs the definition's `steps:` one after another (it has no single `request`): its input
   * value, for rendering each step with the earlier steps' results, and the price each step reserves
   * (0 for a step whose `when:` the item alone already rules out). `reserveUsd` is their sum.
   */
  stepwise?: { value: unknown; reserves: number[] };
}

/** `readPipelinePage` result. */
export interface PlannedPage {
  items: PlannedItem[];
  cursor: ItemCursor;
  done: boolean;
}

/** How an item ended. */
export type ItemStatus = 'completed' | 'failed' | 'cancelled';

/** What the run records for one item in the artifact store (`<prefix>/items/<key>.json`). */
export interface PipelineItemRecord {
  key: string;
  index: number;
  status: ItemStatus;
  attempts: number;
  costUsd: number;
  /** The research task workflow that served the item (DeepResearch and workflow steps). */
  workflowId?: string;
  /** Stored outputs of a research task. */
  outputs?: StoredOutputs;
  /** The stored result of an Answer, Search or Contents item. */
  result?: ArtifactRef;
  error?: string;
  /**
   * USD an earlier attempt may also have been charged (its worker died or its answer was lost after the
   * call was sent, and the call was made again): part of `costUsd`, said here so the double charge shows.
   */
  possiblyChargedUsd?: number;
  /** See PlannedItem.generation. */
  generation?: number;
  /**
   * The item was cancelled but its task stays open at the service (it waits at a checkpoint, which the
   * service does not cancel): a resumed run follows this task instead of paying for another.
   */
  openAtService?: { deepresearchId: string; status: string };
  /** A `steps:` pipeline: each step as it ended, in definition order (steps never reached are absent). */
  steps?: PipelineStepRecord[];
  finishedAt: number;
}

/** How one step of a `steps:` item ended: `skipped` when its `when:` did not hold (nothing was sent or paid). */
export type StepStatus = 'completed' | 'failed' | 'cancelled' | 'skipped';

/**
 * One step of an item of a `steps:` pipeline. Written to the store as the step ends
 * (`<prefix>/steps/<item key>/<step id>.json`) and listed in the item's record (`steps`). A step whose
 * record says `completed` or `skipped` is never run, nor paid, again: a retry of the item or a
 * `--resume` of the run reuses it. Readers (outputs, sinks, digests) find a step's result in `result`
 * (Answer, Search, Contents: a JSON file `{ key, kind, output, sources?, costUsd }`) or in `outputs`
 * (DeepResearch and service workflows: the stored report and files).
 */
export interface PipelineStepRecord {
  /** The step's `id` in the definition. */
  id: string;
  kind: StepKind;
  status: StepStatus;
  /** USD the step cost (0 when skipped); includes `possiblyChargedUsd`. */
  costUsd: number;
  /** A skipped step: its `when:` in words, which did not hold. */
  skippedBecause?: string;
  /** The stored result of an Answer, Search or Contents step. */
  result?: ArtifactRef;
  /** Stored outputs of a DeepResearch or service-workflow step. */
  outputs?: StoredOutputs;
  /** The research task workflow that served a DeepResearch or service-workflow step. */
  workflowId?: string;
  error?: string;
  /** Part of `costUsd` a call whose answer was lost may have been charged (see PipelineItemRecord). */
  possiblyChargedUsd?: number;
  /** A cancelled step whose task the service would not cancel: a resumed run follows that task (see PipelineItemRecord). */
  openAtService?: PipelineItemRecord['openAtService'];
  finishedAt: number;
}

/** `runPipelineItem` result: what an Answer, Search or Contents call cost and where its result is. */
export interface PipelineItemOutcome {
  costUsd: number;
  /** The stored result (absent when `recorded`: the item's record names it). */
  result?: ArtifactRef;
  /** Earlier attempts of this activity sent the call and never reported back: each may have been charged its reserved price. */
  possiblyChargedUsd?: number;
  /** The activity wrote the item's record beside its result (a batch item the run asked it to record): the run does not write it again. */
  recorded?: boolean;
}

/**
 * How one item of a `runPipelineItems` batch ended: its call completed (and its result is stored), or
 * it failed for good in this activity (the run may retry it in another).
 */
export type PipelineBatchEntry =
  | { key: string; status: 'completed'; outcome: PipelineItemOutcome }
  | {
      key: string;
      status: 'failed';
      error: string;
      failureType?: string;
      /** What earlier attempts of this activity that sent the item's call and never reported back may have been charged. */
      earlierPossiblyChargedUsd?: number;
    };

/** `runPipelineItems` result: one entry per item, in the order the items were given. */
export interface PipelineBatchOutcome {
  items: PipelineBatchEntry[];
}

/** `planPipelineStep` result: what the next step of a `steps:` item does. */
export type StepPlan =
  /** An earlier attempt or execution completed (or skipped) the step: its record stands, nothing is paid again. */
  | { kind: 'reuse'; record: PipelineStepRecord }
  /** The step's `when:` does not hold: it is skipped (its record is written already). */
  | { kind: 'skip'; record: PipelineStepRecord }
  /** The step cannot run (a template names a missing result, a preview was refused): the item fails without paying. */
  | { kind: 'problem'; error: string }
  /** Send `request`, reserving `reserveUsd` (the step's price or its caps). */
  | {
      kind: 'run';
      request: ItemRequest;
      reserveUsd: number;
      /** A DeepResearch task an earlier execution's cancelled step left open at the service: followed, not created again. */
      existingTask?: string;
    };

/** Counts of items by what happened to them. */
export interface PipelineCounts {
  /** Items read from the input so far. */
  read: number;
  completed: number;
  failed: number;
  cancelled: number;
  /** Items finished by an earlier execution of this run (`--resume`), not run again. */
  reused: number;
  /** Items never started (a cancelled or failed run). */
  skipped: number;
  running: number;
}

/** Money of a run: what it spent, what in-flight items hold, and its limit. */
export interface BudgetLedger {
  budgetUsd: number;
  spentUsd: number;
  reservedUsd: number;
}

/** What the run is doing, for operators (search attribute `ResearchStatus`, state query, UI details). */
export type PipelineRunPhase =
  'running' | 'paused' | 'waiting_for_budget' | 'credits_exhausted' | 'draining' | 'writing_outputs' | 'synthesis' | 'completed' | 'cancelled' | 'failed';

/** A failed item, kept in the state for operators (the last few only; all are in the records). */
export interface ItemFailure {
  key: string;
  error: string;
  attempts: number;
}

/** State carried across continue-as-new: a cursor and aggregates, never items or results. */
export interface PipelineRunCarried {
  runKey: string;
  runDate: string;
  startedAt: number;
  /** Cursor of the page being worked through, and how many of its items were taken already. */
  pageCursor?: ItemCursor;
  pageTaken: number;
  inputDone: boolean;
  /** Items waiting for another attempt (at most the window's size). */
  retries: PlannedItem[];
  counts: Omit<PipelineCounts, 'running'>;
  ledger: Omit<BudgetLedger, 'reservedUsd'>;
  /** Time the run spent with items in flight (for the rate and ETA). */
  activeMs: number;
  failures: ItemFailure[];
  paused: boolean;
  /** Executions of this run so far (continue-as-new chain length). */
  executions: number;
  /** A problem that fails the run once the window has drained (an item failure with `fail_run`, an unreadable input). */
  fatal?: string;
  /** Dearest item whose price had no upper bound, seen so far (the base of their reservations). */
  observedMaxUsd?: number;
  /** A 402 stopped starts and no operator has resumed the run yet: still so after continue-as-new. */
  creditsExhausted?: boolean;
  /**
   * Research task workflows still running when the run continued as new (started with the abandon close
   * policy): the next execution adopts them, holding their reservations until they report how they ended.
   */
  inFlight?: Array<{ item: PlannedItem; attempts: number; reservedUsd: number; waiting?: 'checkpoint' | 'operator'; step?: StepPosition }>;
  /** The waits the run's notifications told of already (see `WaitMemory`): the next execution does not tell them again. */
  notified?: { budget: boolean; person: string[] };
}

/**
 * Where a `steps:` item stood when the run continued as new: at the start of step `index` (the steps
 * before it are recorded and their money settled), or, with `workflowId`, inside that step's research
 * task. The next execution goes on from there, holding `reservedUsd` for that step, with the records of
 * the steps before it (carried, so it reads nothing again before going on).
 */
export interface StepPosition {
  index: number;
  reservedUsd: number;
  /** The records of steps `0..index-1`, as they ended. */
  records: PipelineStepRecord[];
  /** The step's research task workflow, still running: the next execution follows it, never starts another. */
  workflowId?: string;
}

/** What `pipelineRunStateQuery` returns. */
export interface PipelineRunState {
  pipeline: string;
  runKey: string;
  phase: PipelineRunPhase;
  /** Why the run waits, and what an operator can do. */
  detail?: string;
  counts: PipelineCounts;
  /** Items in the input, once it has been read to the end. */
  total?: number;
  ledger: BudgetLedger;
  /** Estimated milliseconds left, when there is a rate to go by and the total is known. */
  etaMs?: number;
  itemsPerMinute?: number;
  failures: ItemFailure[];
  /** Keys of items in flight (at most the window). */
  running: string[];
  /** Items in flight waiting for an answer to a checkpoint, and for an operator's resume (402, 401, 403). */
  waiting: { checkpoint: string[]; operator: string[] };
  /** How long the longest-waiting item of each kind has waited, in milliseconds. */
  waitingLongestMs?: { checkpoint?: number; operator?: number };
  executions: number;
  outputs?: PipelineOutputs;
  /** Signal payloads the run refused, kept visible (the last few). */
  rejectedMessages: string[];
  /** A `steps:` run: its steps in order (`rp status --item` finds each step's research task from them). */
  steps?: Array<{ id: string; kind: StepKind }>;
}

/** Files the fan-in wrote. */
export interface PipelineOutputs {
  /** Store prefix of the run's folder (`pipelines/<pipeline>/<run>`). */
  prefix: string;
  /** Absolute location of the outputs folder a user can open. */
  folderUri: string;
  files: ArtifactRef[];
  synthesis?: ArtifactRef;
  changes?: ArtifactRef;
  /** Problems of the outputs a reader should know: a CSV column empty for every item names a field no item has. */
  warnings?: string[];
}

/** `pipelineRunWorkflow` result. */
export interface PipelineRunResult {
  pipeline: string;
  runKey: string;
  status: 'completed' | 'cancelled';
  counts: Omit<PipelineCounts, 'running'>;
  ledger: Omit<BudgetLedger, 'reservedUsd'>;
  outputs: PipelineOutputs;
  executions: number;
  durationMs: number;
}

/** `raiseBudget` update argument: a new total, or an amount to add (checked by its schema in src/domain/messages.ts). */
export type { BudgetRaise, ItemWaitingNotice } from './messages';

/** How an adopted item's research task ended, as it reports to the run that adopted it. */
export interface ItemSettledReport {
  item: string;
  workflowId: string;
  status: 'completed' | 'cancelled' | 'failed';
  result?: ResearchTaskResult;
  error?: string;
  failureType?: string;
  /** What a failed task stored before it failed. */
  outputs?: ResearchTaskResult['outputs'];
}
