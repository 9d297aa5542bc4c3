import { randomUUID } from 'node:crypto';
import type { QueryDefinition, SignalDefinition, UpdateDefinition } from '@temporalio/common';
import type { ScenarioHandle } from '../scenario-env';
import { WorkflowNotRunningError, WorkflowQueryFailedError } from './errors';
import { fromPayload, toPayloads } from './payloads';
import type { HarnessRuntime } from './runtime';
import type { WorkflowExecution } from './workflow-execution';

/** Identity the harness's "client" reports in signals and updates. */
const CLIENT_IDENTITY = 'workflow-harness-client';

function nameOf(definition: { readonly name: string } | string): string {
  return typeof definition === 'string' ? definition : definition.name;
}

/**
 * A handle on a workflow execution in the harness, behaving like a client's WorkflowHandle: it
 * follows the continue-as-new chain, and `result()` skips time until the execution closes.
 */
export class HarnessWorkflowHandle<R> implements ScenarioHandle<R> {
  constructor(
    private readonly runtime: HarnessRuntime,
    private readonly execution: WorkflowExecution,
  ) {}

  get workflowId(): string {
    return this.execution.workflowId;
  }

  /** Delivers a signal in the next activation and runs it (no time passes). */
  async signal<Args extends unknown[]>(signal: SignalDefinition<Args> | string, ...args: Args): Promise<void> {
    const run = this.currentOpenRun('signal');
    const input = toPayloads(args);
    run.recordPayloads(input);
    run.historyEvents += 1; // WorkflowExecutionSignaled
    run.enqueue({ signalWorkflow: { signalName: nameOf(signal), input, identity: CLIENT_IDENTITY } });
    await this.runtime.flush();
  }

  /** Answers a query from the current run's state, after pending jobs ran (works on closed runs too). */
  async query<T, Args extends unknown[] = []>(query: QueryDefinition<T, Args> | string, ...args: Args): Promise<T> {
    this.runtime.assertOpen();
    await this.runtime.flush();
    const run = this.execution.currentRun;
    const input = toPayloads(args);
    run.recordPayloads(input);
    const queryId = randomUUID();
    const completion = await this.runtime.withActivationLock(() =>
      run.query({ queryId, queryType: nameOf(query), arguments: input }),
    );
    if (completion.failed) {
      throw new WorkflowQueryFailedError(completion.failed.failure?.message ?? `Query ${nameOf(query)} failed`);
    }
    const answer = completion.successful?.commands?.find((command) => command.respondToQuery?.queryId === queryId)?.respondToQuery;
    if (!answer) throw new WorkflowQueryFailedError(`Workflow ${this.workflowId} did not answer query ${nameOf(query)}`);
    if (answer.failed) throw new WorkflowQueryFailedError(answer.failed.message ?? `Query ${nameOf(query)} failed`);
    const response = answer.succeeded?.response;
    if (response) run.recordPayloads([response]);
    // The payload converter gives back what the workflow returned; T is the caller's claim about it.
    return fromPayload(response) as T;
  }

  /**
   * Sends an update (validator on) and resolves with its result. Validation and everything the
   * handler does without waiting for time happen before this settles; if the handler waits on a
   * timer, the returned promise resolves once the test lets time pass (sleep, waitUntil, result).
   */
  async executeUpdate<T, Args extends unknown[] = []>(update: UpdateDefinition<T, Args> | string, ...args: Args): Promise<T> {
    const run = this.currentOpenRun('update');
    const name = nameOf(update);
    const input = toPayloads(args);
    run.recordPayloads(input);
    const id = randomUUID();
    const outcome = new Promise<unknown>((resolve, reject) => {
      this.runtime.updates.set(id, { name, run, accepted: false, resolve, reject });
    });
    // Rejection may come while settling, before the caller awaits: keep it from counting as unhandled.
    outcome.catch(() => undefined);
    run.enqueue({
      doUpdate: { id, protocolInstanceId: id, name, input, runValidator: true, meta: { updateId: id, identity: CLIENT_IDENTITY } },
    });
    await this.runtime.settle();
    // The update's result is what the handler returned; T is the caller's claim about it.
    return (await outcome) as T;
  }

  /** Requests cancellation; the workflow sees it in its next activation, which runs now. */
  async cancel(): Promise<void> {
    const run = this.currentOpenRun('cancel');
    run.historyEvents += 1; // WorkflowExecutionCancelRequested
    run.enqueue({ cancelWorkflow: { reason: 'cancelled through the harness handle' } });
    await this.runtime.flush();
  }

  /** Skips time until the execution closes, then returns its result or throws WorkflowFailedError. */
  async result(): Promise<R> {
    this.runtime.assertOpen();
    await this.runtime.advance(() => !this.execution.isOpen, undefined, `workflow ${this.workflowId} to close`);
    // The result is what the workflow returned; R is the caller's claim about it.
    return this.execution.result() as R;
  }

  async searchAttributes(): Promise<Record<string, unknown>> {
    return { ...this.execution.searchAttributes };
  }

  async largestPayloadBytes(): Promise<number> {
    return this.execution.largestPayloadBytes;
  }

  async payloadsContain(text: string): Promise<boolean> {
    return this.execution.payloadsContain(text);
  }

  async historyLength(): Promise<number> {
    return this.execution.currentRun.historyEvents;
  }

  async runCount(): Promise<number> {
    return this.execution.runs.length;
  }

  private currentOpenRun(action: string): WorkflowExecution['currentRun'] {
    this.runtime.assertOpen();
    if (!this.execution.isOpen) {
      throw new WorkflowNotRunningError(`Cannot ${action} workflow ${this.workflowId}: workflow execution already completed`);
    }
    return this.execution.currentRun;
  }
}
