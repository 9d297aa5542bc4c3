import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  CancellationScope,
  ParentClosePolicy,
  WorkflowIdReusePolicy,
  condition,
  continueAsNew,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
} from '@temporalio/workflow';
import type { ItemRequest } from '../pipelines/render-item';
import type { BatchItemRecordFields } from '../activities/pipeline-item-batches';
import { itemCalls, shortCalls } from './activity-proxies';
import { continueAsNewAfterHandlers, handlersFinished, historyIsFull } from './continue-as-new';
import { resumeSignal } from './definitions';
import { failureMessage, failureType } from './failure-info';
import { itemDetails, itemSummary } from './pipeline-child-summaries';
import { itemAdoptedSignal } from './pipeline-definitions';
import type { ItemSettledReport } from '../domain/pipeline-types';
import { batchableKind, BatchGroup, itemBatchSize } from './pipeline-item-batch';
import {
  adoptedOutcome,
  alreadyRanOutcome,
  batchEntryOutcome,
  cancelledItemCallOutcome,
  childOutcome,
  failedBatchOutcomes,
  failedChildOutcome,
  failedItemCallOutcome,
  itemCallOutcome,
} from './pipeline-item-outcomes';
import type { PipelineRun, RunStrategy } from './pipeline-run-context';
import type { ItemOutcome } from './pipeline-run-model';
import type { PipelineRunInput, PipelineRunResult, PlannedItem, PlannedPage, StepPosition } from '../domain/pipeline-types';
import { pageSizeFor, readAheadDue, RECORD_FLUSH_SIZE } from './pipeline-window';
import { runItemSteps } from './pipeline-steps';
import type { StepCarrying } from './pipeline-step-carry';
import type { ResearchTaskInput } from './types';
import type { ResearchTaskResult } from '../domain/research-types';

/** Children started under this patch may outlive their run's execution (abandon close policy) and be adopted by the next. */
const CARRY_ITEMS = 'carry-items-across-continue-as-new';
/** `steps:` items started under this patch are carried across continue-as-new too (between steps, or inside a step's research task). */
const CARRY_STEPS = 'carry-steps-items-across-continue-as-new';
/** The run looks again, after writing its records, that nothing moved before it continues as new. */
const RECHECK_DRAINED = 'recheck-drained-before-continue-as-new';
/** Item records are written beside the window (the run does not wait for each write before starting more items). */
const BACKGROUND_RECORDS = 'background-record-writes';
/** Answer, Search and Contents items started together share one activity (`runPipelineItems`). */
const BATCHED_ITEM_CALLS = 'batched-item-calls';
/** A batch's activity writes the records of its items that completed cleanly, beside their results. */
const BATCH_WRITES_RECORDS = 'batch-writes-item-records';
/** The next page of the input is read while the current one is worked through (see `readAheadDue`). */
const READ_AHEAD = 'read-next-page-ahead';
/** How often a run looks at an adopted item whose report has not come (the report is the normal way). */
export const ADOPTED_ITEM_LOOK_MS = 30 * 60_000;

type PipelineRunWorkflow = (input: PipelineRunInput) => Promise<PipelineRunResult>;

/**
 * The sliding window: reads the input page by page from a cursor and runs each item (a research task
 * child workflow for DeepResearch and service-workflow steps, an activity for Answer, Search and
 * Contents) under the window's concurrency, a start rate and the budget (`decideNext`). History holds the
 * cursor and aggregates only: past a history threshold the window drains and the run continues as new,
 * carrying the research tasks still running (the next execution adopts them) and waiting for the calls.
 */
export class WindowStrategy implements RunStrategy {
  /** An operator's resume goes on to the items in flight (their research tasks wait for it after a 402). */
  #forwardResume = false;
  /** Reports of adopted items (started by an earlier execution) that ended, by item key. */
  readonly #reports = new Map<string, ItemSettledReport>();
  /** The research task each `steps:` item runs a step in now, by item key (an operator's resume goes to it). */
  readonly #stepChildren = new Map<string, string>();
  /** Steps' research tasks this execution follows without having started them (carried or found running), by item key. */
  readonly #followedSteps = new Map<string, string>();
  readonly #pageSize: number;
  /** The next page, read ahead at `request` (its result or its final failure; a page not taken is read again by whoever needs it). */
  #ahead?: { request: PageRequest; read: Promise<{ page: PlannedPage } | { error: unknown }> };
  /** Whether this execution reads pages ahead (histories recorded before read each page when the last one is used up). */
  #readsAhead?: boolean;

  constructor(
    private readonly run: PipelineRun,
    private readonly usesChildren: boolean,
  ) {
    this.#pageSize = pageSizeFor(run.definition.concurrency, run.input.pageSize);
  }

  resumed(): void {
    this.#forwardResume = this.usesChildren;
  }

  itemSettled(report: ItemSettledReport): void {
    if (report.workflowId === this.#followedSteps.get(report.item)) {
      this.#reports.set(report.item, report);
      this.run.wake();
      return;
    }
    // A step's research task that ends Canceled reports its cost and outputs (and a task the service
    // would not cancel) before it ends: kept for the step that awaits it.
    if (report.status === 'cancelled' && report.workflowId === this.#stepChildren.get(report.item)) {
      this.run.stepReports.set(report.workflowId, report);
      this.run.wake();
      return;
    }
    const flight = this.run.model.inFlight.get(report.item);
    // An item this run adopted reports here, and so does a child that ends Canceled (its result rides on
    // the report), from the workflow that serves it now.
    if (!flight || (!flight.carriable && report.status !== 'cancelled') || report.workflowId !== this.run.itemWorkflowId(flight.item)) return;
    this.#reports.set(report.item, report);
    this.run.wake();
  }

  unrunRetries(): number {
    // Retries wait in the model's queue and count as skipped when the run stops.
    return 0;
  }

  async runItems(): Promise<void> {
    const { run } = this;
    const { model } = run;
    // Items the previous execution left running: adopted and followed to their end.
    for (const { item, attempts, step } of model.carriedFlights()) {
      // A `steps:` item goes on from where it stood (its recorded steps are reused, the step's task followed).
      const followed = item.stepwise ? this.#runSteps(item, attempts, this.#carrying(item.key, step)) : this.#followAdopted(item);
      void followed.then((outcome) => {
        model.settle(item.key, outcome, Date.now());
        run.wake();
      });
    }
    for (;;) {
      run.changed = false;
      if (model.needsPage && !model.stopping) await this.#readPage();
      this.#readAheadIfDue();
      let decision = model.decide(Date.now());
      // Answer, Search and Contents items started together share one activity (see itemBatchSize).
      let group: BatchGroup | undefined;
      while (decision.kind !== 'wait') {
        if (decision.kind === 'reuse') model.reuse(decision.item);
        else if (decision.kind === 'refuse') model.refuse(decision.item, Date.now());
        else {
          const { item } = decision;
          const kind = batchableKind(item);
          const size = itemBatchSize({ concurrency: run.definition.concurrency, ratePerSecond: run.definition.start_rate_per_second, kind });
          if (kind && size > 1 && this.#batching()) {
            const bytes = JSON.stringify(item.request).length;
            if (group && !group.add(item, bytes)) {
              this.#launchGroup(group.items);
              group = undefined;
            }
            if (!group) {
              group = new BatchGroup(kind, size);
              group.add(item, bytes);
            }
            model.start(item, Date.now());
            if (group.full) {
              this.#launchGroup(group.items);
              group = undefined;
            }
          } else this.#launch(item);
        }
        decision = model.decide(Date.now());
      }
      if (group) this.#launchGroup(group.items);
      this.#readAheadIfDue();
      if (decision.reason === 'no_items' && model.needsPage && !model.stopping) continue;
      model.showWait(decision);
      run.publish();
      if (this.#forwardResume) {
        this.#forwardResume = false;
        await Promise.all(
          [...model.inFlight.values()].map(({ item }) =>
            getExternalWorkflowHandle(this.#stepChildren.get(item.key) ?? run.itemWorkflowId(item))
              .signal(resumeSignal)
              .catch(() => undefined),
          ),
        );
      }
      if (model.pending.length >= RECORD_FLUSH_SIZE) {
        // Records are written beside the window instead of holding it: starts go on while they are stored.
        if (patched(BACKGROUND_RECORDS)) run.flushInBackground();
        else await run.flush();
      } else if (run.rowsDue(decision)) run.flushInBackground();
      if (run.recordWriteFailed) await run.flush();
      if (!model.draining && !model.stopping && !model.inputExhausted && historyIsFull(run.input.continueAsNewAfterEvents)) {
        model.draining = true;
        continue;
      }
      if (model.draining && model.drained) {
        await run.flush();
        await run.rowsWritten();
        await run.notifier.settle();
        const { carried, runKey } = run;
        const nextInput = (): PipelineRunInput => ({
          ...run.input,
          runKey,
          carried: {
            ...model.toCarried({ runKey, runDate: carried.runDate, startedAt: carried.startedAt, executions: carried.executions + 1 }, Date.now()),
            ...run.notifier.toCarried(),
          },
        });
        if (!patched(RECHECK_DRAINED)) return await continueAsNewAfterHandlers<PipelineRunWorkflow>(nextInput);
        await handlersFinished();
        // An item moved while the records were written (a step's task ended and the item went on): the
        // window goes on until everything stands still again. The check and the carried state are taken
        // together, with nothing in between.
        if (!model.drained || model.pending.length > 0) continue;
        const next = nextInput();
        model.continuedAsNew = true;
        return await continueAsNew<PipelineRunWorkflow>(next);
      }
      if (model.inFlight.size === 0 && (model.inputExhausted || model.stopping)) return;
      if (run.changed) continue;
      if (decision.delayMs !== undefined) await condition(() => run.changed, decision.delayMs);
      else await condition(() => run.changed);
    }
  }

  async #readPage(): Promise<void> {
    const { model } = this.run;
    const request = model.pageRequest();
    const ahead = this.#ahead;
    this.#ahead = undefined;
    try {
      if (ahead && samePageRequest(ahead.request, request)) {
        // Read beside the window while the last page was worked through: its result, or its final failure.
        const read = await ahead.read;
        if ('error' in read) throw read.error;
        model.loadPage(read.page);
      } else model.loadPage(await shortCalls.readPipelinePage({ ...this.run.ref, ...request, limit: this.#pageSize }));
    } catch (error) {
      // Any failure that reaches here is final (the activity's retries are spent, or it cannot be retried):
      // the run stops starting, lets what runs finish, writes its outputs and fails saying why.
      if (isCancellation(error)) throw error;
      model.inputFailed(`the input could not be read further: ${failureMessage(error)}`);
    }
  }

  /**
   * Starts reading the next page when the current one runs low (`readAheadDue`), so starts go on at the
   * page boundary instead of waiting for the read. The run's cursor stays where the run stands: a page read
   * ahead and not taken (the run continued as new, or stopped) is simply not carried.
   */
  #readAheadIfDue(): void {
    const { model } = this.run;
    const request = model.nextPageRequest();
    const view = {
      left: model.pageLeft,
      morePages: request !== undefined,
      reading: this.#ahead !== undefined,
      stopping: model.stopping,
      concurrency: this.run.definition.concurrency,
      pageSize: this.#pageSize,
    };
    if (!request || !readAheadDue(view)) return;
    this.#readsAhead ??= patched(READ_AHEAD);
    if (!this.#readsAhead) return;
    this.#ahead = {
      request,
      // Never rejects: a failure (or the run's cancellation) is taken when the page is needed.
      read: shortCalls.readPipelinePage({ ...this.run.ref, ...request, limit: this.#pageSize }).then(
        (page) => ({ page }),
        (error: unknown) => ({ error }),
      ),
    };
  }

  /** Whether this execution sends Answer, Search and Contents items in batches (histories recorded before send one activity per item). */
  #batched?: boolean;

  #batching(): boolean {
    this.#batched ??= patched(BATCHED_ITEM_CALLS);
    return this.#batched;
  }

  /**
   * Sends items started together (`model.start`): one alone as its own activity, more as one batch. Each
   * item's call counts, when it may have been charged, at what the run reserved for it (for an item whose
   * price the service does not bound, twice the dearest such item so far, not the plan's estimate).
   */
  #launchGroup(started: PlannedItem[]): void {
    const { model } = this.run;
    const items = started.map((item) => ({ ...item, reserveUsd: Math.max(item.reserveUsd, model.inFlight.get(item.key)?.reservedUsd ?? 0) }));
    const settle = (item: PlannedItem, outcome: ItemOutcome) => model.settle(item.key, outcome, Date.now());
    if (items.length === 1) {
      const item = items[0]!;
      void this.#runItem(item, this.run.model.inFlight.get(item.key)?.attempts ?? 1, false).then((outcome) => {
        settle(item, outcome);
        this.run.wake();
      });
      return;
    }
    void this.#runBatch(items).then((outcomes) => {
      items.forEach((item, index) => settle(item, outcomes[index]!));
      this.run.sinkRecordedRows();
      this.run.wake();
    });
  }

  /** Whether this execution's batches write their items' records (histories recorded before carry every record through a write of the run's). */
  #batchRecords?: boolean;

  /**
   * What a batch needs to write an item's record as the run would, for an item no earlier attempt may
   * have been charged for (such an item's record says so, and the run writes it).
   */
  #recordFields(item: PlannedItem): BatchItemRecordFields | undefined {
    this.#batchRecords ??= patched(BATCH_WRITES_RECORDS);
    if (!this.#batchRecords || (item.possiblyChargedUsd ?? 0) > 0) return undefined;
    return { index: item.index, attempts: this.run.model.inFlight.get(item.key)?.attempts ?? 1, ...(item.generation ? { generation: item.generation } : {}) };
  }

  /** Runs a batch of started Answer, Search or Contents items to one outcome each (in order); never throws. */
  async #runBatch(items: PlannedItem[]): Promise<ItemOutcome[]> {
    try {
      const outcome = await itemCalls.runPipelineItems({
        prefix: this.run.prefix,
        items: items.map((item) => {
          const record = this.#recordFields(item);
          return { key: item.key, request: item.request as ItemRequest, reserveUsd: item.reserveUsd, ...(record ? { record } : {}) };
        }),
      });
      return items.map((item, index) => {
        const entry = outcome.items[index];
        return batchEntryOutcome(entry?.key === item.key ? entry : outcome.items.find((other) => other.key === item.key), item.reserveUsd);
      });
    } catch (error) {
      if (isCancellation(error)) return items.map((item) => cancelledItemCallOutcome(item.reserveUsd));
      return failedBatchOutcomes(
        error,
        items.map((item) => ({ key: item.key, reserveUsd: item.reserveUsd })),
      );
    }
  }

  #launch(item: PlannedItem): void {
    const request = item.request;
    const carriable = (request?.kind === 'deepresearch' || request?.kind === 'workflow') && patched(CARRY_ITEMS);
    const attempts = this.run.model.start(item, Date.now(), carriable);
    const outcome = item.stepwise
      ? this.#runSteps(item, attempts, patched(CARRY_STEPS) ? this.#carrying(item.key) : undefined)
      : this.#runItem(item, attempts, carriable);
    void outcome.then((outcome) => {
      this.run.model.settle(item.key, outcome, Date.now());
      this.run.wake();
    });
  }

  /** Runs a `steps:` item's steps to its outcome (carried across continue-as-new with `carrying`); never throws. */
  #runSteps(item: PlannedItem, attempts: number, carrying?: StepCarrying): Promise<ItemOutcome> {
    const children = this.#stepChildren;
    return runItemSteps(this.run, item, attempts, (workflowId) => (workflowId ? children.set(item.key, workflowId) : children.delete(item.key)), carrying);
  }

  /** How a `steps:` item is carried: from where the previous execution left it, its steps' tasks followed through this run. */
  #carrying(key: string, from?: StepPosition): StepCarrying {
    return {
      ...(from ? { from } : {}),
      follow: async (workflowId) => {
        this.#followedSteps.set(key, workflowId);
        try {
          return await this.#follow(key, workflowId);
        } finally {
          this.#followedSteps.delete(key);
        }
      },
    };
  }

  /** Runs one started item (not a `steps:` one) to its outcome; never throws. */
  async #runItem(item: PlannedItem, attempts: number, carriable: boolean): Promise<ItemOutcome> {
    const { run } = this;
    const request = item.request as ItemRequest;
    if (request.kind === 'deepresearch' || request.kind === 'workflow') {
      const workflowId = run.itemWorkflowId(item);
      try {
        const result = await executeChild<(input: ResearchTaskInput) => Promise<ResearchTaskResult>>('researchTaskWorkflow', {
          workflowId,
          args: [run.taskInput(item.key, request.request, item.existingTask)],
          // A failed attempt may run again; a completed or running item's workflow is never started twice.
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
          // An adoptable item outlives this execution when the run continues as new (the next adopts it);
          // cancelling the run still cancels it, through the cancellation scope.
          parentClosePolicy: carriable ? ParentClosePolicy.ABANDON : ParentClosePolicy.REQUEST_CANCEL,
          staticSummary: itemSummary(run.identity, item, attempts),
          staticDetails: itemDetails(run.identity, item, request),
        });
        return childOutcome(workflowId, result);
      } catch (error) {
        if (error instanceof WorkflowExecutionAlreadyStartedError) {
          // Running or completed outside this execution (an earlier one was terminated before recording it):
          // the run adopts it and records how it ends, rather than paying for another.
          if (carriable) return await this.#followAdopted(item);
          return alreadyRanOutcome(workflowId);
        }
        // A child that ends Canceled reported its cost and outputs first.
        const report = this.#reports.get(item.key);
        if (isCancellation(error)) return report ? adoptedOutcome(workflowId, report) : { status: 'cancelled', costUsd: 0, workflowId };
        return failedChildOutcome(workflowId, error);
      } finally {
        this.#reports.delete(item.key);
      }
    }
    // A call that may have been charged counts at what the run reserved for it: for an item whose price
    // the service does not bound, that is twice the dearest such item so far, not the plan's estimate (0).
    const reserveUsd = Math.max(item.reserveUsd, run.model.inFlight.get(item.key)?.reservedUsd ?? 0);
    try {
      return itemCallOutcome(await itemCalls.runPipelineItem({ key: item.key, request, prefix: run.prefix, reserveUsd }));
    } catch (error) {
      if (isCancellation(error)) return cancelledItemCallOutcome(reserveUsd);
      return failedItemCallOutcome(error, reserveUsd);
    }
  }

  /**
   * Follows an item whose research task workflow this execution did not start (carried across
   * continue-as-new, or found running): asks it to report its outcome here, and looks at it now and then
   * in case the report cannot come (it had ended already). Cancelling the run cancels it; never throws.
   */
  #followAdopted(item: PlannedItem): Promise<ItemOutcome> {
    return this.#follow(item.key, this.run.itemWorkflowId(item));
  }

  /** Follows the research task workflow `workflowId` that item `key` waits on and this execution did not start (see `#followAdopted`). */
  async #follow(key: string, workflowId: string): Promise<ItemOutcome> {
    const reports = this.#reports;
    const follow = async (look: boolean): Promise<ItemOutcome> => {
      for (;;) {
        if (look) {
          const looked = await shortCalls.lookItemWorkflow({ workflowId });
          if (looked.status !== 'running') return adoptedOutcome(workflowId, looked);
        }
        look = true;
        if (await condition(() => reports.has(key), ADOPTED_ITEM_LOOK_MS)) return adoptedOutcome(workflowId, reports.get(key)!);
      }
    };
    try {
      let ended = false;
      try {
        await getExternalWorkflowHandle(workflowId).signal(itemAdoptedSignal, { run: this.run.workflowId });
      } catch (error) {
        if (isCancellation(error)) throw error;
        ended = true;
      }
      return await follow(ended);
    } catch (error) {
      if (!isCancellation(error)) return { status: 'failed', costUsd: 0, workflowId, error: failureMessage(error), failureType: failureType(error) };
      // The run was cancelled: so is the item, which then reports how it ended (its partial outputs).
      return await CancellationScope.nonCancellable(async () => {
        await getExternalWorkflowHandle(workflowId)
          .cancel()
          .catch(() => undefined);
        try {
          return await follow(true);
        } catch (lookError) {
          // Its end could not be read (the look failed for good): the item is recorded as failed with the
          // reason, rather than the rejection failing every workflow task of the cancelled run.
          return { status: 'failed', costUsd: 0, workflowId, error: failureMessage(lookError), failureType: failureType(lookError) };
        }
      });
    } finally {
      reports.delete(key);
    }
  }
}

/** Where a page read starts: its cursor, and how many of its items an earlier execution took. */
type PageRequest = ReturnType<PipelineRun['model']['pageRequest']>;

/** Whether two page reads start at the same place. */
function samePageRequest(a: PageRequest, b: PageRequest): boolean {
  return a.skip === b.skip && JSON.stringify(a.cursor ?? null) === JSON.stringify(b.cursor ?? null);
}
