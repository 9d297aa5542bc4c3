import { CancellationScope, patched, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { PipelineRunRef } from '../activities/pipeline-items';
import { shortCalls, sinkChunks } from './activity-proxies';
import { failureMessage, failureType } from './failure-info';
import { FailureType } from '../domain/failures';
import { rowStepId } from '../pipelines/step-kind';
import { rowsDue } from './sink-rows';
import type { WindowDecision } from './pipeline-window';
import { pipelineItemGenerationId, pipelineRunPrefix, runKeyOfRunWorkflowId } from '../domain/ids';
import type { RunIdentity } from './pipeline-child-summaries';
import type { ItemSettledReport, PipelineItemRecord } from '../domain/pipeline-types';
import type { BatchSettledReport, ResearchTaskInput } from './types';
import { initialCarried, PipelineRunModel } from './pipeline-run-model';
import type { PipelineRunCarried, PipelineRunInput, PlannedItem } from '../domain/pipeline-types';
import { liveUpsertDue, PublishedAttributes, type LiveMark } from './published-attributes';
import { settledCount } from './pipeline-progress';
import { RunNotifier } from './run-notifications';
import { setRunGauges } from './run-gauges';
import { ResearchCostUsdKey, ResearchPipelineKey, ResearchStatusKey } from './search-attributes';

/** Most item records one background write carries (its input sits in history). */
export const MAX_RECORDS_PER_WRITE = 50;
/** Runs with SQL sinks write the rows of each chunk of records as it is stored, not only when the run ends. */
const SQL_ROWS_AS_ITEMS_SETTLE = 'sql-rows-as-items-settle';

/**
 * How a pipeline run works through its items: a sliding window of child workflows and activities
 * (`WindowStrategy`), or the service's batch API (`ServiceBatchStrategy`). The run workflow picks one
 * and does the rest: messages, the key check, the fan-in and the result.
 */
export interface RunStrategy {
  /**
   * Works through the items until the input is used up or the run stops, then returns with nothing in
   * flight; throws a cancellation when the run is cancelled, and may continue as new.
   */
  runItems(): Promise<void>;
  /** An operator resumed the run: whatever waits for that resume hears it too. */
  resumed(): void;
  /** An adopted item reported how it ended (checked already). */
  itemSettled(report: ItemSettledReport): void;
  /** A service batch cancelled by request reported what it collected before ending Canceled. */
  batchSettled?(report: BatchSettledReport): void;
  /** Items counted as going to run again that never will (the run stopped first): they stay failed. */
  unrunRetries(): number;
}

/**
 * What every strategy of a pipeline run shares: who the run is, its model, how it shows itself (search
 * attributes, current details), how its waits are woken, and where its item records go.
 */
export class PipelineRun {
  readonly definition: PipelineRunInput['definition'];
  readonly runKey: string;
  readonly carried: PipelineRunCarried;
  /** The run's store folder. */
  readonly prefix: string;
  /** The run as its activities are told about it. */
  readonly ref: PipelineRunRef;
  readonly model: PipelineRunModel;
  readonly workflowId: string;
  readonly firstExecutionRunId: string;
  /** The run as its children's summaries name it. */
  readonly identity: RunIdentity;
  /** Something happened (a message came, an item ended) that the run's next wait must not sleep through. */
  changed = false;
  /** Reports of `steps:` children that ended Canceled (their cost and outputs ride on the report), by workflow id. */
  readonly stepReports = new Map<string, ItemSettledReport>();
  readonly #attributes = new PublishedAttributes();
  /** Tells the run's `notify:` receivers when it waits and when it ends. */
  readonly notifier: RunNotifier;
  /** The money last upserted, when and at how many settled items (see liveUpsertDue). */
  #costMark?: LiveMark;

  constructor(readonly input: PipelineRunInput) {
    const { definition } = input;
    const info = workflowInfo();
    this.definition = definition;
    this.workflowId = info.workflowId;
    this.firstExecutionRunId = info.firstExecutionRunId;
    this.runKey = input.carried?.runKey ?? input.runKey ?? runKeyOfRunWorkflowId(info.workflowId, definition.name);
    this.carried = input.carried ?? initialCarried(this.runKey, new Date(Date.now()).toISOString().slice(0, 10), definition.budget_usd, Date.now());
    this.prefix = pipelineRunPrefix(definition.name, this.runKey);
    this.identity = { pipeline: definition.name, runKey: this.runKey, workflowId: info.workflowId };
    this.ref = { definition, source: input.source, params: input.params, runKey: this.runKey, runDate: this.carried.runDate, prefix: this.prefix };
    this.model = new PipelineRunModel(
      {
        pipeline: definition.name,
        concurrency: definition.concurrency,
        ratePerSecond: definition.start_rate_per_second,
        retries: definition.retries,
        failRunOnItemFailure: definition.on_item_failure === 'fail_run',
      },
      this.carried,
      Date.now(),
    );
    this.notifier = new RunNotifier(this);
  }

  /** Names the run's pipeline for operators' filters. */
  showPipeline(): void {
    this.#attributes.upsert([{ key: ResearchPipelineKey, value: this.definition.name }]);
  }

  /**
   * Shows the run's state: search attributes when its phase changes (one event per change), the money
   * spent as it moves (bounded, see liveUpsertDue), current details always.
   */
  publish(): void {
    const { model } = this;
    const now: LiveMark = { at: Date.now(), settled: settledCount(model.counts), value: model.ledger.spentUsd };
    const phaseChanged = this.#attributes.upsert(
      [
        { key: ResearchStatusKey, value: model.phase },
        { key: ResearchCostUsdKey, value: model.ledger.spentUsd },
      ],
      { kind: 'when', keys: [ResearchStatusKey.name] },
    );
    if (phaseChanged) this.#costMark = now;
    else if (liveUpsertDue(this.#costMark, now) && patched('live-run-cost')) {
      this.#attributes.upsert([{ key: ResearchCostUsdKey, value: model.ledger.spentUsd }]);
      this.#costMark = now;
    }
    setCurrentDetails(model.details(Date.now()));
    setRunGauges(this.definition.name, model);
    this.notifier.observe();
  }

  /** Shows what the run spent, whatever its phase (its last word). */
  showSpent(): void {
    this.#attributes.upsert([{ key: ResearchCostUsdKey, value: this.model.ledger.spentUsd }]);
  }

  /** Wakes the run's next wait. */
  wake(): void {
    this.changed = true;
  }

  /** The records write running in the background (`flushInBackground`), if any. */
  #writing?: Promise<void>;
  /** Why the last background write failed; the next `flush` throws it. */
  #writeFailure?: Error;

  /** Writes the records of ended items to the store, after any write running in the background. */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
    if (this.#writeFailure !== undefined) throw this.#writeFailure;
    if (!this.#chunked) {
      const records = this.model.takePending();
      if (records.length > 0) {
        await shortCalls.recordPipelineItems({ prefix: this.prefix, records });
        this.#sinkRows(records);
      }
      return;
    }
    // Chunks, so no write's input (it sits in history) grows with the backlog.
    while (this.model.pending.length > 0) {
      const records = this.model.pending.splice(0, MAX_RECORDS_PER_WRITE);
      await shortCalls.recordPipelineItems({ prefix: this.prefix, records });
      this.#sinkRows(records);
    }
  }

  /** Records are written in chunks of at most `MAX_RECORDS_PER_WRITE` (set once a run writes beside its window). */
  #chunked = false;

  /**
   * Starts writing the records of ended items (at most `MAX_RECORDS_PER_WRITE`) without waiting for it,
   * one write at a time, so the window keeps starting items meanwhile. The write is not cut off by a
   * cancellation; a write that fails puts its records back, and the next `flush` throws its error.
   */
  flushInBackground(): void {
    this.#chunked = true;
    if (this.#writing || this.#writeFailure !== undefined) return;
    const records = this.model.pending.splice(0, MAX_RECORDS_PER_WRITE);
    if (records.length === 0) return;
    this.#writing = CancellationScope.nonCancellable(() => shortCalls.recordPipelineItems({ prefix: this.prefix, records })).then(
      () => {
        this.#writing = undefined;
        this.#sinkRows(records);
      },
      (error: unknown) => {
        this.model.pending.unshift(...records);
        this.#writeFailure = error instanceof Error ? error : new Error(String(error));
        this.#writing = undefined;
        this.wake();
      },
    );
  }

  /** Whether the run writes its SQL rows as its records are stored (a definition with `postgres` outputs, started under this code). */
  #rowsAsItemsSettle?: boolean;
  get #writesRows(): boolean {
    this.#rowsAsItemsSettle ??= (this.definition.sinks ?? []).length > 0 && patched(SQL_ROWS_AS_ITEMS_SETTLE);
    return this.#rowsAsItemsSettle;
  }
  /** Items whose records are stored and whose rows wait for the SQL write under way. */
  readonly #rowsQueued: string[] = [];
  /** The SQL write of a chunk's rows under way, if any. */
  #rowsWriting?: Promise<void>;
  /** Chunk writes that failed for good in this execution (the first is noted, so a database down does not crowd out other notes). */
  #rowsFailed = 0;

  /**
   * Whether the records waiting now should be written though fewer than a chunk, so their SQL rows do
   * not wait (see `rowsDue`): only in a run with SQL sinks.
   */
  rowsDue(decision: WindowDecision): boolean {
    const oldest = this.model.pending[0];
    return (
      rowsDue({
        pending: this.model.pending.length,
        now: Date.now(),
        ...(oldest ? { oldestEndedAt: oldest.finishedAt } : {}),
        ...(decision.kind === 'wait' ? { wait: decision.reason } : {}),
      }) && this.#writesRows
    );
  }

  /**
   * Upserts the SQL rows of records just stored, beside the run: one write at a time, never cut off by a
   * cancellation. A write that fails (its few tries spent) is noted and left to the run's final write,
   * which covers every item: it neither fails nor holds the run.
   */
  #sinkRows(records: ReadonlyArray<Pick<PipelineItemRecord, 'key'>>): void {
    if (records.length === 0 || !this.#writesRows) return;
    this.#rowsQueued.push(...records.map((record) => record.key));
    this.#writeQueuedRows();
  }

  /** Upserts the SQL rows of items whose own activity stored their records (see `sinkRows`). */
  sinkRecordedRows(): void {
    this.#sinkRows(this.model.recordedKeys.splice(0).map((key) => ({ key })));
  }

  #writeQueuedRows(): void {
    if (this.#rowsWriting || this.#rowsQueued.length === 0) return;
    if (!this.#writesRows) {
      this.#rowsQueued.length = 0;
      return;
    }
    const items = this.#rowsQueued.splice(0, MAX_RECORDS_PER_WRITE);
    const input = {
      pipeline: this.definition.name,
      runKey: this.runKey,
      prefix: this.prefix,
      oneStepId: rowStepId(this.definition),
      sinks: (this.definition.sinks ?? []).map((sink) => sink.postgres),
      items,
    };
    this.#rowsWriting = CancellationScope.nonCancellable(() => sinkChunks.sinkPipelineItemRows(input))
      .then(
        () => undefined,
        (error: unknown) => {
          if (this.#rowsFailed++ === 0)
            this.model.note(
              `SQL rows of ${items.length} item(s) not written as they settled (the run's final write covers them, and any later chunk that fails too): ${failureMessage(error)}`,
            );
          // A sink the worker cannot reach at all (no URL in its environment) fails every chunk the same way: the rest wait for the final write.
          if (failureType(error) === FailureType.DeliveryNotConfigured) this.#rowsAsItemsSettle = false;
        },
      )
      .then(() => {
        this.#rowsWriting = undefined;
        this.#writeQueuedRows();
      });
  }

  /** Waits for the SQL writes of stored records to end (before the run's final write, or before it continues as new). */
  async rowsWritten(): Promise<void> {
    while (this.#rowsWriting) await this.#rowsWriting;
  }

  /** A background write failed: the run stops where it is (the failure is thrown by `flush`). */
  get recordWriteFailed(): boolean {
    return this.#writeFailure !== undefined;
  }

  /** The workflow id of an item's research task, in its generation. */
  itemWorkflowId(item: PlannedItem): string {
    return pipelineItemGenerationId(this.definition.name, this.runKey, item.key, item.generation);
  }

  /** The context a child research task or batch carries into the service's metadata. */
  childContext(item?: string): { pipeline: string; run: string; item?: string } {
    return { pipeline: this.definition.name, run: this.runKey, ...(item !== undefined ? { item } : {}) };
  }

  /** The input of the research task an item (or one of its steps) runs in; `existingTask`: a task left open at the service, followed instead of created. */
  taskInput(item: string, request: ResearchTaskInput['request'], existingTask?: string): ResearchTaskInput {
    return {
      request,
      context: this.childContext(item),
      ...(this.input.polling ? { polling: this.input.polling } : {}),
      ...(existingTask ? { existingTask } : {}),
    };
  }
}
