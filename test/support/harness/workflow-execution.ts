import { decodeSearchAttributes, decodeTypedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes';
import type { Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { WorkflowFailedError, type WorkflowTaskFailedError } from './errors';
import type { ProtoFailure } from './payloads';
import type { WorkflowRun } from './workflow-run';

/** How an execution (the whole continue-as-new chain) ended. */
export type ExecutionOutcome =
  | { readonly status: 'completed'; readonly result: unknown; readonly payload?: Payload }
  | { readonly status: 'failed'; readonly failure: ProtoFailure }
  | { readonly status: 'cancelled'; readonly failure: ProtoFailure }
  | { readonly status: 'terminated'; readonly reason: string }
  | { readonly status: 'taskFailed'; readonly error: WorkflowTaskFailedError };

/** The parent run and command seq of a child workflow execution. */
export interface ParentLink {
  readonly run: WorkflowRun;
  readonly seq: number;
}

/**
 * A workflow execution as a client sees it through a handle: one workflow id, a chain of runs
 * (continue-as-new starts the next), the latest search attributes and the final outcome.
 */
export class WorkflowExecution {
  /** Runs in start order; the last one is current. */
  readonly runs: WorkflowRun[] = [];
  /** Latest search attribute values, decoded (upserts merged, removals deleted). */
  readonly searchAttributes: Record<string, unknown> = {};
  /** The same attributes as payloads, carried to the next run on continue-as-new. */
  readonly searchAttributePayloads: Record<string, Payload> = {};
  private finalOutcome: ExecutionOutcome | undefined;
  private readonly closeListeners: ((outcome: ExecutionOutcome) => void)[] = [];

  constructor(
    readonly workflowId: string,
    readonly workflowType: string,
    readonly parent?: ParentLink,
  ) {}

  /** The run that receives signals, queries, updates and cancellation. */
  get currentRun(): WorkflowRun {
    const run = this.runs[this.runs.length - 1];
    if (!run) throw new Error(`Workflow ${this.workflowId} has no run yet`);
    return run;
  }

  /** True until the last run of the chain closes without continuing as new. */
  get isOpen(): boolean {
    return this.finalOutcome === undefined;
  }

  /** The final outcome, once closed. */
  get outcome(): ExecutionOutcome | undefined {
    return this.finalOutcome;
  }

  /** Largest payload across all runs of the chain, in bytes. */
  get largestPayloadBytes(): number {
    return Math.max(0, ...this.runs.map((run) => run.largestPayloadBytes));
  }

  /** True when any payload of any run contains `text`. */
  payloadsContain(text: string): boolean {
    return this.runs.some((run) => run.payloadTexts.some((payload) => payload.includes(text)));
  }

  /** Merges an upsert (or initial search attributes) into the latest values. */
  applySearchAttributes(attributes: temporal.api.common.v1.ISearchAttributes | null | undefined): void {
    for (const [name, payload] of Object.entries(attributes?.indexedFields ?? {})) {
      const single = { [name]: payload };
      const typed = decodeTypedSearchAttributes(single).getAll()[0];
      // Untyped (legacy) attributes decode to arrays; an empty array or null value means removal.
      const value = typed ? typed.value : decodeSearchAttributes(single)[name];
      if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) {
        delete this.searchAttributes[name];
        delete this.searchAttributePayloads[name];
      } else {
        this.searchAttributes[name] = value;
        this.searchAttributePayloads[name] = payload;
      }
    }
  }

  /** Registers a callback for when the execution closes (children resolving their parent). */
  onClose(listener: (outcome: ExecutionOutcome) => void): void {
    if (this.finalOutcome) listener(this.finalOutcome);
    else this.closeListeners.push(listener);
  }

  /** Closes the execution with its final outcome (first close wins). */
  close(outcome: ExecutionOutcome): void {
    if (this.finalOutcome) return;
    this.finalOutcome = outcome;
    for (const run of this.runs) run.close();
    for (const listener of this.closeListeners.splice(0)) listener(outcome);
  }

  /** The result a client's `handle.result()` gives for the final outcome. */
  result(): unknown {
    const outcome = this.finalOutcome;
    if (!outcome) throw new Error(`Workflow ${this.workflowId} is still running`);
    switch (outcome.status) {
      case 'completed':
        return outcome.result;
      case 'failed':
      case 'cancelled':
        throw WorkflowFailedError.fromFailure(this.workflowId, outcome.status, outcome.failure);
      case 'terminated':
        throw new WorkflowFailedError(this.workflowId, 'terminated', outcome.reason, undefined, undefined);
      case 'taskFailed':
        throw outcome.error;
    }
  }
}
