import {
  CancellationScope,
  ParentClosePolicy,
  WorkflowIdReusePolicy,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  startChild,
} from '@temporalio/workflow';
import type { PreparedBatchRound } from '../activities/pipeline-batch-prepare';
import { storeJobs } from './activity-proxies';
import { resumeSignal } from './definitions';
import { failureMessage } from './failure-info';
import { researchBatchWorkflowId } from '../domain/ids';
import { afterPrepared, initialBatchStepState, nextBatchRound, unrunRetries } from './pipeline-batch-plan';
import { availableUsd } from '../domain/budget';
import { batchDetails, batchSummary } from './pipeline-child-summaries';
import type { PipelineRun, RunStrategy } from './pipeline-run-context';
import type { BatchSettledReport, ResearchBatchInput, ResearchBatchResult } from './types';

/**
 * A `batch` step: the items go to the service's batch API, one service batch (a `researchBatchWorkflow`
 * child, tasks by reference) per round. A round takes the input from the cursor while the tasks'
 * prices fit the budget, at most `MAX_TASKS_PER_PIPELINE_BATCH`; failed tasks with attempts left run
 * again in a later round. The service runs a batch's tasks in parallel, so the window and start rate
 * do not apply; pause holds the next round (a service batch cannot be paused).
 */
export class ServiceBatchStrategy implements RunStrategy {
  /** What a batch cancelled by request reported before ending Canceled, by its workflow id. */
  readonly #reports = new Map<string, ResearchBatchResult>();
  #step = initialBatchStepState();
  /** The service batch workflow of the round in flight. */
  #inFlight: string | undefined;

  constructor(private readonly run: PipelineRun) {}

  resumed(): void {
    // A batch waiting for an operator (402, 401, 403) hears the resume too.
    if (this.#inFlight)
      void getExternalWorkflowHandle(this.#inFlight)
        .signal(resumeSignal)
        .catch(() => undefined);
  }

  itemSettled(): void {
    // Only research task items are adopted; a service batch's tasks report through its workflow.
  }

  batchSettled(report: BatchSettledReport): void {
    // Only the batch this run awaits: its result arrives here because a Canceled workflow keeps none.
    if (report.workflowId === this.#inFlight) this.#reports.set(report.workflowId, report.result);
  }

  unrunRetries(): number {
    // Failed batch tasks whose retry never ran stay failed, as their records say.
    return unrunRetries(this.#step);
  }

  async runItems(): Promise<void> {
    const { run } = this;
    const { model } = run;
    for (;;) {
      run.changed = false;
      const decision = nextBatchRound(this.#step, { paused: model.paused, stopping: model.stopping, ledger: model.ledger });
      if (decision.kind === 'done') return;
      if (decision.kind === 'wait') {
        [model.phase, model.detail] =
          decision.reason === 'paused'
            ? ['paused', 'paused by an operator: send resumePipeline to start the next service batch']
            : [
                'waiting_for_budget',
                `the next task (${this.#step.blockedUsd ?? 0} USD) would pass the budget: raise it with the raiseBudget update, or cancel the run`,
              ];
        run.publish();
        await condition(() => run.changed);
        continue;
      }
      const round = this.#step.rounds;
      [model.phase, model.detail] = ['running', `preparing service batch ${round + 1}`];
      run.publish();
      let prepared: PreparedBatchRound;
      try {
        prepared = await storeJobs.preparePipelineBatch({ ...run.ref, take: decision.take, round, budgetLeftUsd: availableUsd(model.ledger) });
      } catch (error) {
        if (isCancellation(error)) throw error;
        // What finished is kept and written out; the run then fails with the reason.
        model.inputFailed(`the next service batch could not be prepared: ${failureMessage(error)}`);
        return;
      }
      this.#step = afterPrepared(this.#step, decision.take, { ...prepared, tasks: prepared.tasksRef?.count ?? 0 });
      if (this.#step.inputExhausted) model.batchInputDone();
      model.batchPrepared({ ...prepared, tasks: prepared.tasksRef?.count ?? 0 }, Date.now());
      if (prepared.tasksRef && prepared.itemsKey) await this.#runRound(round, prepared, prepared.tasksRef, prepared.itemsKey);
    }
  }

  /** Runs one round's service batch to its end (it collects what finished even when cancelled) and records its tasks. */
  async #runRound(round: number, prepared: PreparedBatchRound, tasksRef: { key: string; count: number }, itemsKey: string): Promise<void> {
    const { run } = this;
    const { model, definition } = run;
    const workflowId = researchBatchWorkflowId({ pipeline: definition.name, run: run.runKey, batch: `${run.firstExecutionRunId.slice(0, 8)}-${round + 1}` });
    model.detail = `service batch ${round + 1}: ${tasksRef.count} tasks in workflow ${workflowId}${model.paused ? ' (paused: the batch runs on; the next one waits)' : ''}`;
    run.publish();
    const child = await startChild<(input: ResearchBatchInput) => Promise<ResearchBatchResult>>('researchBatchWorkflow', {
      workflowId,
      args: [{ batch: prepared.batch, tasks: [], tasksRef, context: run.childContext(), ...(run.input.polling ? { polling: run.input.polling } : {}) }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      staticSummary: batchSummary(run.identity, round + 1, tasksRef.count),
      staticDetails: batchDetails(run.identity, round + 1, {
        tasks: tasksRef.count,
        ...(prepared.batch.mode ? { mode: prepared.batch.mode } : {}),
        reservedUsd: prepared.reservedUsd,
      }),
    });
    this.#inFlight = workflowId;
    // The batch reports back even when cancelled (it cancels at the service and collects what finished).
    const settled = CancellationScope.nonCancellable(() => child.result()).then(
      (result): { result?: ResearchBatchResult; error?: string } => ({ result }),
      (error: unknown) => {
        // A batch cancelled by request ends Canceled after collecting; it reported what it collected first.
        const reported = this.#reports.get(workflowId);
        return isCancellation(error) && reported ? { result: reported } : { error: failureMessage(error) };
      },
    );
    let outcome: { result?: ResearchBatchResult; error?: string };
    try {
      outcome = await Promise.race([settled, CancellationScope.current().cancelRequested]);
    } catch (error) {
      if (!isCancellation(error)) throw error;
      model.cancelled = true;
      outcome = await settled;
    } finally {
      this.#inFlight = undefined;
      this.#reports.delete(workflowId);
    }
    const recorded = await CancellationScope.nonCancellable(() =>
      storeJobs.recordPipelineBatch({
        prefix: run.prefix,
        round,
        itemsKey,
        tasksKey: tasksRef.key,
        workflowId,
        manifests: outcome.result?.manifests ?? [],
        cancelled: model.cancelled,
        maxAttempts: 1 + definition.retries,
        ...(outcome.error !== undefined ? { batchError: `the service batch failed: ${outcome.error}` } : {}),
      }),
    );
    model.batchSettled(prepared.reservedUsd, recorded, Date.now());
    if (recorded.retry) this.#step = { ...this.#step, retry: { from: 'retry', ...recorded.retry, skip: 0 } };
    run.publish();
    if (model.cancelled) await CancellationScope.current().cancelRequested;
  }
}
