import type { ItemCursor } from '../pipelines/types';
import { fitsBudget, reserve, reserveFor, roundUsd, settle, raiseBudget } from '../domain/budget';
import { estimateTimeLeft, runDetails } from './pipeline-progress';
import { keepLast } from '../domain/keep-last';
import { itemRecordOf, type EndedItem } from '../domain/pipeline-records';
import { decideNext, refill, shouldRetry, type RateBucket, type WindowDecision } from './pipeline-window';
import type {
  BudgetLedger,
  BudgetRaise,
  PipelineCounts,
  PipelineItemRecord,
  PipelineOutputs,
  PipelineRunCarried,
  PipelineRunPhase,
  PipelineRunState,
  PlannedItem,
  PlannedPage,
  StepPosition,
} from '../domain/pipeline-types';

/** How one started item ended, as the workflow saw it. */
export type ItemOutcome =
  | (EndedItem & {
      failureType?: string;
      /**
       * The money was settled step by step as each step ended (`settleStep`): the item's end releases what
       * it still holds, and only `possiblyChargedUsd` (a step that may have been charged) follows a retry.
       */
      settledBySteps?: boolean;
      /** Its record is stored already (a batch's activity wrote it beside the result): the run does not write it. */
      recorded?: boolean;
    })
  /** The service refused for credits (402): the item goes back to the queue and the run waits for `resume`. */
  | { status: 'credits_exhausted' };

interface InFlight {
  item: PlannedItem;
  attempts: number;
  reservedUsd: number;
  /**
   * A research task workflow the next execution can adopt (started with the abandon close policy, or
   * adopted already): continue-as-new carries it instead of waiting for it to end.
   */
  carriable?: boolean;
  /** A `steps:` item that stands where it can be carried (`stepPosition`): where the next execution goes on. */
  stepAt?: StepPosition;
}

/** The run's limits from its definition. */
export interface RunLimits {
  pipeline: string;
  concurrency: number;
  ratePerSecond: number;
  retries: number;
  failRunOnItemFailure: boolean;
}

/**
 * A pipeline run's state and rules, apart from Temporal wiring so they are unit tested: the page being
 * worked through, the retry queue, the window, the budget ledger, counts, records waiting to be written,
 * pause and credit waits, and what is carried across continue-as-new.
 */
export class PipelineRunModel {
  readonly counts: PipelineCounts;
  ledger: BudgetLedger;
  bucket: RateBucket;
  paused: boolean;
  creditsExhausted = false;
  /** Dearest unbounded-price item seen so far (see `reserveFor`). */
  observedMaxUsd?: number;
  cancelled = false;
  draining = false;
  /** The run has taken its state for continue-as-new: nothing it does afterwards counts (items stop where they are). */
  continuedAsNew = false;
  fatal?: string;
  detail?: string;
  phase: PipelineRunPhase = 'running';
  failures: PipelineRunCarried['failures'];
  rejectedMessages: string[] = [];
  /** Cancelled items of this execution whose tasks stay open at the service (see ItemOutcome.openAtService). */
  openAtService = 0;
  activeMs: number;
  outputs?: PipelineOutputs;
  /** Records of ended items not yet written to the store. */
  pending: PipelineItemRecord[] = [];
  /** Items that ended with their record stored by their own activity (not in `pending`), waiting for their SQL rows. */
  recordedKeys: string[] = [];
  readonly inFlight = new Map<string, InFlight>();
  #retries: PlannedItem[];
  #page: PlannedItem[] = [];
  #pageCursor?: ItemCursor;
  #pageTaken: number;
  #pageLoaded = false;
  #nextCursor?: ItemCursor;
  #lastPage = false;
  #exhausted: boolean;
  #activeSince?: number;

  constructor(
    readonly limits: RunLimits,
    readonly carried: PipelineRunCarried,
    now: number,
  ) {
    this.counts = { ...carried.counts, running: 0 };
    this.ledger = { ...carried.ledger, reservedUsd: 0 };
    this.bucket = { tokens: 1, updatedAt: now };
    this.paused = carried.paused;
    this.fatal = carried.fatal;
    this.failures = [...carried.failures];
    this.activeMs = carried.activeMs;
    this.#retries = [...carried.retries];
    this.#pageCursor = carried.pageCursor;
    this.#pageTaken = carried.pageTaken;
    this.#exhausted = carried.inputDone;
    this.observedMaxUsd = carried.observedMaxUsd;
    this.creditsExhausted = carried.creditsExhausted ?? false;
    // Items an earlier execution left running hold their reservations here until they end.
    for (const { waiting, step, ...flight } of carried.inFlight ?? []) {
      this.inFlight.set(flight.item.key, { ...flight, carriable: true, ...(step ? { stepAt: step } : {}) });
      if (waiting) {
        this.waitingItems.set(flight.item.key, waiting);
        this.waitingSince.set(flight.item.key, now);
      }
      this.ledger = reserve(this.ledger, flight.reservedUsd);
    }
    this.counts.running = this.inFlight.size;
    if (this.inFlight.size > 0) this.#activeSince = now;
  }

  /** Items carried in from the previous execution, still running: the run adopts and follows them (a `steps:` item from its `step`). */
  carriedFlights(): Array<{ item: PlannedItem; attempts: number; step?: StepPosition }> {
    return (this.carried.inFlight ?? [])
      .filter((flight) => this.inFlight.has(flight.item.key))
      .map(({ item, attempts, step }) => ({ item, attempts, ...(step ? { step } : {}) }));
  }

  /**
   * A `steps:` item stands where the next execution can take it over (`at`: between two steps, or inside
   * a step's research task), or moves on (undefined: planning, a paid call, writing a record), when the
   * run waits for it before continuing as new.
   */
  stepPosition(key: string, at: StepPosition | undefined): void {
    const flight = this.inFlight.get(key);
    if (!flight) return;
    flight.carriable = at !== undefined;
    if (at) flight.stepAt = at;
    else delete flight.stepAt;
  }

  /**
   * A draining run may continue as new once nothing is in flight but items the next execution can adopt:
   * Answer, Search and Contents calls (bounded by their activity timeouts) finish first; research tasks,
   * which may wait days for a person's answer, are carried rather than waited for, and so are `steps:`
   * items standing between steps or inside a step's research task (see `stepPosition`).
   */
  get drained(): boolean {
    return [...this.inFlight.values()].every((flight) => flight.carriable === true);
  }

  /** No new starts: draining for continue-as-new, cancelled, or failing. */
  get stopping(): boolean {
    return this.draining || this.cancelled || this.fatal !== undefined;
  }

  /** The next item to decide on: a retry first, then the page. */
  peek(): PlannedItem | undefined {
    return this.#retries[0] ?? this.#page[0];
  }

  /** True when a page must be read before anything can be decided. */
  get needsPage(): boolean {
    return this.peek() === undefined && !this.#exhausted && !this.#pageLoaded;
  }

  /** Where the next page read starts, and how many of its items an earlier execution took. */
  pageRequest(): { cursor?: ItemCursor; skip: number } {
    return { ...(this.#pageCursor ? { cursor: this.#pageCursor } : {}), skip: this.#pageTaken };
  }

  /** Items of the current page not yet taken (retries not counted). */
  get pageLeft(): number {
    return this.#page.length;
  }

  /**
   * Where the page after the current one starts, to read it ahead while the current one is worked
   * through (it is what `pageRequest()` gives once the current page is used up); undefined when the
   * current page is the input's last, or none is loaded.
   */
  nextPageRequest(): { cursor: ItemCursor; skip: number } | undefined {
    if (!this.#pageLoaded || this.#lastPage || this.#exhausted || this.#page.length === 0 || !this.#nextCursor) return undefined;
    return { cursor: this.#nextCursor, skip: 0 };
  }

  /** Takes a page read at `pageRequest()`. */
  loadPage(page: PlannedPage): void {
    this.#page = page.items;
    this.#nextCursor = page.cursor;
    this.#lastPage = page.done;
    this.#pageLoaded = true;
    if (this.#page.length === 0) this.#advance();
  }

  /** The input cannot be read further (a file changed or vanished): what was read runs, then the run fails. */
  inputFailed(problem: string): void {
    this.fatal ??= problem;
    this.#exhausted = true;
    this.#page = [];
  }

  /** Every item was read and taken, nothing waits for a retry. */
  get inputExhausted(): boolean {
    return this.#exhausted && this.peek() === undefined;
  }

  /** Items in the input, once read to the end. */
  get total(): number | undefined {
    return this.#exhausted ? this.counts.read : undefined;
  }

  #advance(): void {
    if (this.#lastPage) {
      this.#exhausted = true;
    } else {
      this.#pageCursor = this.#nextCursor;
      this.#pageTaken = 0;
    }
    this.#pageLoaded = false;
  }

  #take(item: PlannedItem): void {
    if (this.#retries[0] === item) {
      this.#retries.shift();
      return;
    }
    this.#page.shift();
    this.#pageTaken += 1;
    this.counts.read += 1;
    if (this.#page.length === 0) this.#advance();
  }

  /** The window's decision for the next item, as of `now`. */
  decide(now: number): WindowDecision {
    this.bucket = refill(this.bucket, this.limits.ratePerSecond, now);
    return decideNext({
      running: this.inFlight.size,
      concurrency: this.limits.concurrency,
      paused: this.paused,
      creditsExhausted: this.creditsExhausted,
      stopping: this.stopping,
      next: this.peek(),
      ledger: this.ledger,
      bucket: this.bucket,
      ratePerSecond: this.limits.ratePerSecond,
      ...(this.observedMaxUsd !== undefined ? { observedMaxUsd: this.observedMaxUsd } : {}),
    });
  }

  /** Counts an item an earlier execution finished. */
  reuse(item: PlannedItem): void {
    this.#take(item);
    this.counts.reused += 1;
  }

  /** Records an item that cannot run as failed, spending nothing. */
  refuse(item: PlannedItem, now: number): void {
    this.#take(item);
    this.#finish(item, 0, { status: 'failed', costUsd: 0, error: item.problem ?? 'no request could be made for this item' }, now);
  }

  /** Starts an item: takes it, spends a start token, reserves its price. Returns its attempt number. */
  start(item: PlannedItem, now: number, carriable = false): number {
    this.#take(item);
    this.bucket = { ...this.bucket, tokens: this.bucket.tokens - 1 };
    const reservedUsd = reserveFor(item, this.observedMaxUsd);
    this.ledger = reserve(this.ledger, reservedUsd);
    const attempts = (item.attempts ?? 0) + 1;
    if (this.inFlight.size === 0) this.#activeSince = now;
    this.inFlight.set(item.key, { item, attempts, reservedUsd, ...(carriable ? { carriable } : {}) });
    this.counts.running = this.inFlight.size;
    return attempts;
  }

  /** Applies how a started item ended: settles its money, retries it, or records it. */
  settle(key: string, outcome: ItemOutcome, now: number): void {
    const flight = this.inFlight.get(key);
    if (!flight) return;
    this.inFlight.delete(key);
    this.waitingItems.delete(key);
    this.waitingSince.delete(key);
    this.counts.running = this.inFlight.size;
    if (this.inFlight.size === 0 && this.#activeSince !== undefined) {
      this.activeMs += now - this.#activeSince;
      this.#activeSince = undefined;
    }
    if (outcome.status === 'credits_exhausted') {
      this.ledger = settle(this.ledger, flight.reservedUsd, 0);
      this.#retries.unshift({ ...flight.item, attempts: flight.attempts - 1 });
      this.creditsExhausted = true;
      return;
    }
    this.ledger = settle(this.ledger, flight.reservedUsd, outcome.settledBySteps ? 0 : outcome.costUsd);
    if (flight.item.priceUnbounded && outcome.status !== 'cancelled') this.observedMaxUsd = Math.max(this.observedMaxUsd ?? 0, outcome.costUsd);
    const retry = outcome.status === 'failed' && !this.cancelled && shouldRetry(flight.attempts, this.limits.retries, outcome.failureType);
    if (retry) {
      // A failed attempt that may have been charged is counted (in the ledger now, in the item's record when it ends).
      // A step-by-step item's completed steps are recorded and reused by the retry: only a step that may have been charged follows it.
      const possiblyChargedUsd = (flight.item.possiblyChargedUsd ?? 0) + (outcome.settledBySteps ? (outcome.possiblyChargedUsd ?? 0) : outcome.costUsd);
      this.#retries.push({
        ...flight.item,
        attempts: flight.attempts,
        ...(possiblyChargedUsd > 0 ? { possiblyChargedUsd: roundUsd(possiblyChargedUsd) } : {}),
      });
      return;
    }
    this.#finish(flight.item, flight.attempts, outcome, now);
  }

  #finish(item: PlannedItem, attempts: number, outcome: Extract<ItemOutcome, { costUsd: number }>, now: number): void {
    this.counts[outcome.status] += 1;
    if (outcome.recorded) this.recordedKeys.push(item.key);
    else this.pending.push(itemRecordOf(item, attempts, outcome, now));
    if (outcome.openAtService) this.openAtService += 1;
    if (outcome.status === 'failed') {
      this.failures = keepLast(this.failures, { key: item.key, error: outcome.error ?? 'failed', attempts });
      if (this.limits.failRunOnItemFailure)
        this.fatal ??= `item "${item.key}" failed after ${attempts} attempt(s) and on_item_failure is fail_run: ${outcome.error ?? 'no reason given'}`;
    }
  }

  /**
   * One step of a running `steps:` item ended: the part of the item's reservation it held is settled
   * at what it cost, so the ledger shows each step's spending as it happens.
   */
  settleStep(key: string, reservedUsd: number, costUsd: number): void {
    const flight = this.inFlight.get(key);
    if (!flight) return;
    const released = Math.min(reservedUsd, flight.reservedUsd);
    flight.reservedUsd = roundUsd(flight.reservedUsd - released);
    this.ledger = settle(this.ledger, released, costUsd);
  }

  /**
   * A step of a running item costs more than the item reserved for it (a service workflow priced by its
   * preview): reserves the difference if the budget allows it, else says no and the step does not run.
   */
  reserveMore(key: string, usd: number): boolean {
    const flight = this.inFlight.get(key);
    if (!flight || !fitsBudget(this.ledger, usd)) return false;
    this.ledger = reserve(this.ledger, usd);
    flight.reservedUsd = roundUsd(flight.reservedUsd + usd);
    return true;
  }

  /**
   * A `batch` step round was prepared: its items were read, reused or refused (their records are
   * written), and its tasks hold their price while the service batch runs.
   */
  batchPrepared(
    round: { read: number; reused: number; invalid: number; tasks: number; reservedUsd: number; problems: Array<{ key: string; error: string }> },
    now: number,
  ): void {
    this.counts.read += round.read;
    this.counts.reused += round.reused;
    this.counts.failed += round.invalid;
    for (const problem of round.problems) this.failures = keepLast(this.failures, { ...problem, attempts: 0 });
    if (round.invalid > 0 && this.limits.failRunOnItemFailure)
      this.fatal ??= `${round.invalid} item(s) could not run and on_item_failure is fail_run: ${round.problems[0]?.error ?? 'no reason given'}`;
    if (round.tasks === 0) return;
    this.ledger = reserve(this.ledger, round.reservedUsd);
    this.counts.running = round.tasks;
    this.#activeSince = now;
  }

  /** A `batch` step round ended: its money is settled and its final outcomes counted (retried tasks are not yet final). */
  batchSettled(
    reservedUsd: number,
    recorded: { completed: number; failed: number; cancelled: number; costUsd: number; failures: Array<{ key: string; error: string; attempts: number }> },
    now: number,
  ): void {
    this.ledger = settle(this.ledger, reservedUsd, recorded.costUsd);
    this.counts.completed += recorded.completed;
    this.counts.failed += recorded.failed;
    this.counts.cancelled += recorded.cancelled;
    this.counts.running = 0;
    for (const failure of recorded.failures) this.failures = keepLast(this.failures, failure);
    if (recorded.failed > 0 && this.limits.failRunOnItemFailure) {
      this.fatal ??= `item "${recorded.failures[0]?.key}" failed and on_item_failure is fail_run: ${recorded.failures[0]?.error ?? 'no reason given'}`;
    }
    if (this.#activeSince !== undefined) this.activeMs += now - this.#activeSince;
    this.#activeSince = undefined;
  }

  /** The `batch` step read its whole input: the total is known. */
  batchInputDone(): void {
    this.#exhausted = true;
  }

  /** Takes the records waiting to be written. */
  takePending(): PipelineItemRecord[] {
    return this.pending.splice(0);
  }

  /** Items read or queued but never started (a cancelled or failed run). */
  markUnstarted(): void {
    this.counts.skipped += this.#retries.length + this.#page.length;
    this.#retries = [];
    this.#page = [];
  }

  /** Applies a checked budget raise. */
  raise(raise: BudgetRaise): BudgetLedger {
    this.ledger = raiseBudget(this.ledger, raise);
    return this.ledger;
  }

  /** Notes a refused signal payload, visible in the state. */
  reject(message: string): void {
    this.rejectedMessages = keepLast(this.rejectedMessages, message);
  }

  /** Notes something operators should see (a skipped synthesis), with the refused messages. */
  note(message: string): void {
    this.rejectedMessages = keepLast(this.rejectedMessages, message);
  }

  /** The phase and detail a wait shows. */
  showWait(decision: WindowDecision): void {
    if (
      this.phase !== 'running' &&
      this.phase !== 'paused' &&
      this.phase !== 'waiting_for_budget' &&
      this.phase !== 'credits_exhausted' &&
      this.phase !== 'draining'
    )
      return;
    const reason = decision.kind === 'wait' ? decision.reason : undefined;
    if (this.draining) [this.phase, this.detail] = ['draining', 'letting the items in flight finish before continuing as new'];
    else if (reason === 'paused') [this.phase, this.detail] = ['paused', 'paused by an operator: send resumePipeline to go on (items in flight continue)'];
    else if (reason === 'credits_exhausted')
      [this.phase, this.detail] = ['credits_exhausted', 'credits exhausted (402): top up the account, then send resumePipeline'];
    else if (reason === 'budget_blocked') {
      const next = this.peek();
      const needed = next ? reserveFor(next, this.observedMaxUsd) : 0;
      [this.phase, this.detail] = [
        'waiting_for_budget',
        `the next item (${needed} USD) would pass the budget of ${this.ledger.budgetUsd} USD (${this.ledger.spentUsd} spent): raise it with the raiseBudget update (rp budget --add), or cancel the run`,
      ];
    } else if (reason === 'price_probe')
      [this.phase, this.detail] = ['running', "the service does not bound this step's price: one item runs first, and the others reserve twice what it cost"];
    else [this.phase, this.detail] = ['running', undefined];
  }

  /** Elapsed time with items in flight, including the current stretch. */
  activeTime(now: number): number {
    return this.activeMs + (this.#activeSince !== undefined ? now - this.#activeSince : 0);
  }

  /** Items in flight that wait for a person, by what they wait for (their research tasks say so). */
  readonly waitingItems = new Map<string, 'checkpoint' | 'operator'>();

  /** Since when each waiting item waits (as this execution heard it). */
  readonly waitingSince = new Map<string, number>();

  /** Applies an item's notice; an item not in flight (finished, or another run's) is ignored. */
  noteWaiting(item: string, waiting: 'checkpoint' | 'operator' | null, now = Date.now()): void {
    if (waiting === null || !this.inFlight.has(item)) {
      this.waitingItems.delete(item);
      this.waitingSince.delete(item);
      return;
    }
    if (this.waitingItems.get(item) !== waiting) this.waitingSince.set(item, now);
    this.waitingItems.set(item, waiting);
  }

  /** How long the longest-waiting item of each kind has waited. */
  #oldestWaits(now: number): { checkpoint?: number; operator?: number } {
    const oldest: { checkpoint?: number; operator?: number } = {};
    for (const [key, kind] of this.waitingItems) {
      const since = this.waitingSince.get(key);
      if (since === undefined || !this.inFlight.has(key)) continue;
      oldest[kind] = Math.max(oldest[kind] ?? 0, now - since);
    }
    return oldest;
  }

  /** True while items are in flight and every one of them waits for a person: the rate says nothing then. */
  #blockedOnPeople(): boolean {
    return this.inFlight.size > 0 && [...this.inFlight.keys()].every((key) => this.waitingItems.has(key));
  }

  #waitingKeys(kind: 'checkpoint' | 'operator'): string[] {
    return [...this.waitingItems]
      .filter(([key, what]) => what === kind && this.inFlight.has(key))
      .map(([key]) => key)
      .sort();
  }

  /** The state query's answer. */
  toState(runKey: string, executions: number, now: number): PipelineRunState {
    const total = this.total;
    return {
      pipeline: this.limits.pipeline,
      runKey,
      phase: this.phase,
      ...(this.detail ? { detail: this.detail } : {}),
      counts: { ...this.counts },
      ...(total !== undefined ? { total } : {}),
      ledger: { ...this.ledger },
      ...estimateTimeLeft({ counts: this.counts, total, activeMs: this.activeTime(now), blockedOnPeople: this.#blockedOnPeople(), phase: this.phase }),
      failures: [...this.failures],
      running: [...this.inFlight.keys()],
      waiting: { checkpoint: this.#waitingKeys('checkpoint'), operator: this.#waitingKeys('operator') },
      waitingLongestMs: this.#oldestWaits(now),
      executions,
      ...(this.outputs ? { outputs: this.outputs } : {}),
      rejectedMessages: [...this.rejectedMessages],
    };
  }

  /** Markdown for the UI's current details. */
  details(now: number): string {
    const total = this.total;
    const { etaMs } = estimateTimeLeft({
      counts: this.counts,
      total,
      activeMs: this.activeTime(now),
      blockedOnPeople: this.#blockedOnPeople(),
      phase: this.phase,
    });
    const waiting = { checkpoint: this.#waitingKeys('checkpoint').length, operator: this.#waitingKeys('operator').length, longestMs: this.#oldestWaits(now) };
    return runDetails({ phase: this.phase, counts: this.counts, total, ledger: this.ledger, etaMs, detail: this.detail, waiting });
  }

  /** What continue-as-new carries: the cursor, aggregates and the adoptable items still running (the rest has drained). */
  toCarried(base: Pick<PipelineRunCarried, 'runKey' | 'runDate' | 'startedAt' | 'executions'>, now?: number): PipelineRunCarried {
    const { running: _running, ...counts } = this.counts;
    return {
      ...base,
      ...(this.#pageCursor ? { pageCursor: this.#pageCursor } : {}),
      pageTaken: this.#pageTaken,
      inputDone: this.#exhausted,
      retries: [...this.#retries],
      counts,
      ledger: { budgetUsd: this.ledger.budgetUsd, spentUsd: this.ledger.spentUsd },
      activeMs: now !== undefined ? this.activeTime(now) : this.activeMs,
      failures: [...this.failures],
      paused: this.paused,
      ...(this.fatal ? { fatal: this.fatal } : {}),
      ...(this.observedMaxUsd !== undefined ? { observedMaxUsd: this.observedMaxUsd } : {}),
      ...(this.creditsExhausted ? { creditsExhausted: true } : {}),
      ...(this.inFlight.size > 0
        ? {
            inFlight: [...this.inFlight.values()].map(({ item, attempts, reservedUsd, stepAt }) => {
              const waiting = this.waitingItems.get(item.key);
              return { item, attempts, reservedUsd, ...(waiting ? { waiting } : {}), ...(stepAt ? { step: stepAt } : {}) };
            }),
          }
        : {}),
    };
  }
}

/** The state of a run's first execution. */
export function initialCarried(runKey: string, runDate: string, budgetUsd: number, now: number): PipelineRunCarried {
  return {
    runKey,
    runDate,
    startedAt: now,
    pageTaken: 0,
    inputDone: false,
    retries: [],
    counts: { read: 0, completed: 0, failed: 0, cancelled: 0, reused: 0, skipped: 0 },
    ledger: { budgetUsd, spentUsd: 0 },
    activeMs: 0,
    failures: [],
    paused: false,
    executions: 1,
  };
}
