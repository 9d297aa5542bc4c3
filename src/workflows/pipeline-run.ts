import {
  ApplicationFailure, CancellationScope, ParentClosePolicy, WorkflowIdReusePolicy,
  allHandlersFinished, condition, continueAsNew, executeChild, startChild, getExternalWorkflowHandle, isCancellation, patched, proxyActivities, setCurrentDetails,
  setHandler, sleep, upsertSearchAttributes, workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { createActivities } from '../activities';
import type { LookedItemWorkflow } from '../activities/item-workflows';
import type { PreparedBatchRound } from '../activities/pipeline-batch';
import type { ArtifactRef, StoredOutputs } from '../activities/types';
import type { ItemRequest } from '../pipelines/render-item';
import { stepSpec } from '../pipelines/step-kind';
import { download, itemCall, shortCall } from './activity-options';
import { described, resumeSignal } from './definitions';
import { failureMessage, failureType } from './failure-info';
import { FailureType } from './failures';
import { pipelineItemGenerationId, pipelineRunPrefix, pipelineSynthesisWorkflowId, researchBatchWorkflowId, runKeyOfRunWorkflowId } from './ids';
import { afterPrepared, initialBatchStepState, nextBatchRound, unrunRetries } from './pipeline-batch-plan';
import { availableUsd, budgetRaiseProblem, fitsBudget } from './pipeline-budget';
import {
  itemAdoptedSignal, itemSettledSignal, itemWaitingSignal, pausePipelineSignal, pipelineRunStateQuery, raiseBudgetUpdate, resumePipelineSignal, type ItemSettledReport,
} from './pipeline-definitions';
import { itemSettledProblem, itemWaitingProblem, operatorSignalProblem } from './pipeline-progress';
import { initialCarried, PipelineRunModel, type ItemOutcome } from './pipeline-run-model';
import type { PipelineOutputs, PipelineRunInput, PipelineRunResult, PlannedItem } from './pipeline-types';
import { pageSizeFor, PIPELINE_CONTINUE_AS_NEW_EVENTS, RECORD_FLUSH_SIZE, shouldContinueAsNew } from './pipeline-window';
import { ResearchCostUsdKey, ResearchPipelineKey, ResearchStatusKey } from './search-attributes';
import type { ResearchBatchInput, ResearchBatchResult, ResearchTaskInput, ResearchTaskResult } from './types';

type Activities = ReturnType<typeof createActivities>;
const calls = proxyActivities<Activities>(shortCall);
const itemCalls = proxyActivities<Activities>(itemCall);
const fanIn = proxyActivities<Activities>(download);
/** Children started under this patch may outlive their run's execution (abandon close policy) and be adopted by the next. */
const CARRY_ITEMS = 'carry-items-across-continue-as-new';
/** How often a run looks at an adopted item whose report has not come (the report is the normal way). */
export const ADOPTED_ITEM_LOOK_MS = 30 * 60_000;

/**
 * One run of a pipeline definition: reads its input page by page from a cursor, runs each item (a
 * research task child workflow for DeepResearch and service-workflow steps, an activity for Answer,
 * Search and Contents) in a sliding window under a start rate and a budget, records each item in the
 * artifact store, and fans the results in (JSONL, CSV, Markdown, synthesis, change report). History
 * holds the cursor and aggregates only: past a history threshold the run drains its window and
 * continues as new. Children are never carried across continue-as-new: a child's parent is one run,
 * and a new run cannot wait on its predecessor's children, so draining is what keeps every item followed.
 */
export async function pipelineRunWorkflow(input: PipelineRunInput): Promise<PipelineRunResult> {
  const { definition } = input;
  const info = workflowInfo();
  const step = stepSpec(definition.step);
  const runKey = input.carried?.runKey ?? input.runKey ?? runKeyOfRunWorkflowId(info.workflowId, definition.name);
  const carried = input.carried ?? initialCarried(runKey, new Date(Date.now()).toISOString().slice(0, 10), definition.budget_usd, Date.now());
  const prefix = pipelineRunPrefix(definition.name, runKey);
  const run = { definition, source: input.source, params: input.params, runKey, runDate: carried.runDate, prefix };
  const model = new PipelineRunModel({
    pipeline: definition.name, concurrency: definition.concurrency, ratePerSecond: definition.start_rate_per_second,
    retries: definition.retries, failRunOnItemFailure: definition.on_item_failure === 'fail_run',
  }, carried, Date.now());
  const threshold = input.continueAsNewAfterEvents ?? PIPELINE_CONTINUE_AS_NEW_EVENTS;
  const pageSize = pageSizeFor(definition.concurrency, input.pageSize);
  const usesChildren = step.kind === 'deepresearch' || step.kind === 'workflow';
  let changed = false;
  let forwardResume = false;
  /** The service batch workflow of the `batch` step's round in flight. */
  let batchInFlight: string | undefined;
  let batchStep = initialBatchStepState();
  let lastStatus: string | undefined;

  const publish = (): void => {
    if (model.phase !== lastStatus) {
      upsertSearchAttributes([{ key: ResearchStatusKey, value: model.phase }, { key: ResearchCostUsdKey, value: model.ledger.spentUsd }]);
      lastStatus = model.phase;
    }
    setCurrentDetails(model.details(Date.now()));
  };
  const wake = (): void => void (changed = true);
  /** Reports of adopted items (started by an earlier execution) that ended, by item key. */
  const reports = new Map<string, ItemSettledReport>();

  setHandler(pipelineRunStateQuery, () => model.toState(runKey, carried.executions, Date.now()), described(pipelineRunStateQuery));
  setHandler(pausePipelineSignal, (payload) => {
    const problem = operatorSignalProblem(payload);
    if (problem) return model.reject(`pausePipeline refused: ${problem}`);
    model.paused = true;
    wake();
  }, described(pausePipelineSignal));
  setHandler(resumePipelineSignal, (payload) => {
    const problem = operatorSignalProblem(payload);
    if (problem) return model.reject(`resumePipeline refused: ${problem}`);
    model.paused = false;
    model.creditsExhausted = false;
    forwardResume = usesChildren;
    // A batch waiting for an operator (402, 401, 403) hears the resume too.
    if (batchInFlight) void getExternalWorkflowHandle(batchInFlight).signal(resumeSignal).catch(() => undefined);
    wake();
  }, described(resumePipelineSignal));
  setHandler(itemWaitingSignal, (notice) => {
    const problem = itemWaitingProblem(notice);
    if (problem) return model.reject(`pipelineItemWaiting refused: ${problem}`);
    model.noteWaiting(notice.item, notice.waiting);
    publish();
  }, described(itemWaitingSignal));
  setHandler(itemSettledSignal, (report) => {
    const problem = itemSettledProblem(report);
    if (problem) return model.reject(`pipelineItemSettled refused: ${problem}`);
    const flight = model.inFlight.get(report.item);
    // Only an item this run adopted reports here, from the workflow that serves it now.
    if (!flight?.carriable || report.workflowId !== pipelineItemGenerationId(definition.name, runKey, report.item, flight.item.generation)) return;
    reports.set(report.item, report);
    wake();
  }, described(itemSettledSignal));
  setHandler(raiseBudgetUpdate, (raise) => {
    const ledger = model.raise(raise);
    wake();
    return ledger;
  }, {
    ...described(raiseBudgetUpdate),
    validator: (raise) => {
      const problem = budgetRaiseProblem(model.ledger, raise);
      if (problem) throw new Error(problem);
    },
  });

  upsertSearchAttributes([{ key: ResearchPipelineKey, value: definition.name }]);
  publish();

  /** The static details an item's child workflow shows in the UI: where it comes from and what it runs. */
  const itemDetails = (item: PlannedItem, what: string): string =>
    `pipeline **${definition.name}**, run \`${runKey}\` (workflow \`${info.workflowId}\`)\n\nitem \`${item.key}\` (${item.where}) · ${what} · ${item.reserveUsd} USD reserved`;

  /** Runs one started item to its outcome; never throws. */
  async function runItem(item: PlannedItem, attempts: number, carriable: boolean): Promise<ItemOutcome> {
    const request = item.request as ItemRequest;
    if (request.kind === 'deepresearch' || request.kind === 'workflow') {
      const workflowId = pipelineItemGenerationId(definition.name, runKey, item.key, item.generation);
      try {
        const result = await executeChild<(input: ResearchTaskInput) => Promise<ResearchTaskResult>>('researchTaskWorkflow', {
          workflowId,
          args: [{
            request: request.request, context: { pipeline: definition.name, run: runKey, item: item.key }, ...(input.polling ? { polling: input.polling } : {}),
            ...(item.existingTask ? { existingTask: item.existingTask } : {}),
          }],
          // A failed attempt may run again; a completed or running item's workflow is never started twice.
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
          // An adoptable item outlives this execution when the run continues as new (the next adopts it);
          // cancelling the run still cancels it, through the cancellation scope.
          parentClosePolicy: carriable ? ParentClosePolicy.ABANDON : ParentClosePolicy.REQUEST_CANCEL,
          staticSummary: `${definition.name} · run ${runKey} · item ${item.key} (attempt ${attempts})`,
          staticDetails: itemDetails(item, request.kind === 'workflow' ? `service workflow ${request.preview.slug}` : `DeepResearch ${request.request.mode ?? 'standard'}`),
        });
        return childOutcome(workflowId, result);
      } catch (error) {
        if (error instanceof WorkflowExecutionAlreadyStartedError) {
          // Running or completed outside this execution (an earlier one was terminated before recording it):
          // the run adopts it and records how it ends, rather than paying for another.
          if (carriable) return await followAdopted(item);
          return { status: 'failed', costUsd: 0, workflowId, failureType: FailureType.InvalidInput, error: `workflow ${workflowId} already ran for this run key and did not fail (it completed or is running outside this run): not started twice` };
        }
        if (isCancellation(error)) return { status: 'cancelled', costUsd: 0, workflowId };
        const outputs = (failureDetails(error) as { outputs?: StoredOutputs } | undefined)?.outputs;
        return { status: 'failed', costUsd: outputs?.cost ?? 0, workflowId, ...(outputs ? { outputs } : {}), error: failureMessage(error), failureType: failureType(error) };
      }
    }
    try {
      const outcome = await itemCalls.runPipelineItem({ key: item.key, request, prefix, reserveUsd: item.reserveUsd });
      // An earlier attempt that sent the call and never reported back may have been charged too: counted, and said.
      const possiblyChargedUsd = outcome.possiblyChargedUsd ?? 0;
      return {
        status: 'completed', costUsd: outcome.costUsd + possiblyChargedUsd, result: outcome.result,
        ...(possiblyChargedUsd > 0 ? { possiblyChargedUsd, error: `possibly charged twice: ${possiblyChargedUsd} USD (an earlier attempt sent the call and never reported back)` } : {}),
      };
    } catch (error) {
      // Cancelled while its call was in flight: the call may have been charged, so its reserved price counts.
      if (isCancellation(error)) return { status: 'cancelled', costUsd: item.reserveUsd, error: 'cancelled while its call was in flight: its reserved price is counted (it may have been charged)' };
      if (failureType(error) === FailureType.CreditsExhausted) return { status: 'credits_exhausted' };
      // A call that may have been charged costs its reserved price, and so does each earlier attempt that sent
      // it and never reported back: the ledger never counts less than was paid.
      const costUsd = (failureType(error) === FailureType.PossiblyCharged ? item.reserveUsd : 0) + earlierPossiblyCharged(error);
      return { status: 'failed', costUsd, ...(costUsd > 0 ? { possiblyChargedUsd: costUsd } : {}), error: failureMessage(error), failureType: failureType(error) };
    }
  }

  function launch(item: PlannedItem): void {
    const request = item.request;
    const carriable = (request?.kind === 'deepresearch' || request?.kind === 'workflow') && patched(CARRY_ITEMS);
    const attempts = model.start(item, Date.now(), carriable);
    void runItem(item, attempts, carriable).then((outcome) => {
      model.settle(item.key, outcome, Date.now());
      wake();
    });
  }

  /**
   * Follows an item whose research task workflow this execution did not start (carried across
   * continue-as-new, or found running): asks it to report its outcome here, and looks at it now and then
   * in case the report cannot come (it had ended already). Cancelling the run cancels it; never throws.
   */
  async function followAdopted(item: PlannedItem): Promise<ItemOutcome> {
    const workflowId = pipelineItemGenerationId(definition.name, runKey, item.key, item.generation);
    const follow = async (look: boolean): Promise<ItemOutcome> => {
      for (;;) {
        if (look) {
          const looked = await calls.lookItemWorkflow({ workflowId });
          if (looked.status !== 'running') return adoptedOutcome(workflowId, looked);
        }
        look = true;
        if (await condition(() => reports.has(item.key), ADOPTED_ITEM_LOOK_MS)) return adoptedOutcome(workflowId, reports.get(item.key)!);
      }
    };
    try {
      let ended = false;
      try {
        await getExternalWorkflowHandle(workflowId).signal(itemAdoptedSignal, { run: info.workflowId });
      } catch (error) {
        if (isCancellation(error)) throw error;
        ended = true;
      }
      return await follow(ended);
    } catch (error) {
      if (!isCancellation(error)) return { status: 'failed', costUsd: 0, workflowId, error: failureMessage(error), failureType: failureType(error) };
      // The run was cancelled: so is the item, which then reports how it ended (its partial outputs).
      return await CancellationScope.nonCancellable(async () => {
        await getExternalWorkflowHandle(workflowId).cancel().catch(() => undefined);
        return await follow(true);
      });
    } finally {
      reports.delete(item.key);
    }
  }

  async function flush(): Promise<void> {
    const records = model.takePending();
    if (records.length > 0) await calls.recordPipelineItems({ prefix, records });
  }

  async function readPage(): Promise<void> {
    try {
      model.loadPage(await calls.readPipelinePage({ ...run, ...model.pageRequest(), limit: pageSize }));
    } catch (error) {
      // Any failure that reaches here is final (the activity's retries are spent, or it cannot be retried):
      // the run stops starting, lets what runs finish, writes its outputs and fails saying why.
      if (isCancellation(error)) throw error;
      model.inputFailed(`the input could not be read further: ${failureMessage(error)}`);
    }
  }

  try {
    // Two items with one key would share a workflow id and a record: one outcome lost, both paid. The
    // whole input is checked once, before anything is spent (a continued run was checked by its first).
    if (!input.carried && input.source.kind !== 'single' && patched('check-keys-before-spending')) {
      // Refused before spending (repeated keys, or an input that cannot be read to its end): the run is
      // stopping, starts nothing, and finish writes the outputs and says why.
      try {
        const check = await fanIn.checkPipelineKeys({ definition, source: input.source, params: input.params, runKey, runDate: carried.runDate });
        if (check.problem) model.inputFailed(check.problem);
      } catch (error) {
        if (isCancellation(error)) throw error;
        model.inputFailed(`the input cannot be read to its end, so nothing was started: ${failureMessage(error)}`);
      }
    }
    // Items the previous execution left running: adopted and followed to their end.
    for (const { item } of model.carriedFlights()) {
      void followAdopted(item).then((outcome) => {
        model.settle(item.key, outcome, Date.now());
        wake();
      });
    }
    if (step.kind === 'batch') await runBatchStep();
    else for (;;) {
      changed = false;
      if (model.needsPage && !model.stopping) await readPage();
      let decision = model.decide(Date.now());
      while (decision.kind !== 'wait') {
        if (decision.kind === 'reuse') model.reuse(decision.item);
        else if (decision.kind === 'refuse') model.refuse(decision.item, Date.now());
        else launch(decision.item);
        decision = model.decide(Date.now());
      }
      if (decision.reason === 'no_items' && model.needsPage && !model.stopping) continue;
      model.showWait(decision);
      publish();
      if (forwardResume) {
        forwardResume = false;
        await Promise.all([...model.inFlight.values()].map(({ item }) => getExternalWorkflowHandle(pipelineItemGenerationId(definition.name, runKey, item.key, item.generation)).signal(resumeSignal).catch(() => undefined)));
      }
      if (model.pending.length >= RECORD_FLUSH_SIZE) await flush();
      if (!model.draining && !model.stopping && !model.inputExhausted && shouldContinueAsNew(workflowInfo(), threshold)) {
        model.draining = true;
        continue;
      }
      if (model.draining && model.drained) {
        await flush();
        await condition(allHandlersFinished);
        const next = model.toCarried({ runKey, runDate: carried.runDate, startedAt: carried.startedAt, executions: carried.executions + 1 }, Date.now());
        return await continueAsNew<typeof pipelineRunWorkflow>({ ...input, runKey, carried: next });
      }
      if (model.inFlight.size === 0 && (model.inputExhausted || model.stopping)) break;
      if (changed) continue;
      if (decision.delayMs !== undefined) await condition(() => changed, decision.delayMs);
      else await condition(() => changed);
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    model.cancelled = true;
  }
  return await CancellationScope.nonCancellable(finish);

  async function finish(): Promise<PipelineRunResult> {
    // Cancelled children and activities report back; everything that ended is recorded.
    await condition(() => model.inFlight.size === 0);
    model.markUnstarted();
    // Failed batch tasks whose retry never ran stay failed, as their records say.
    model.counts.failed += unrunRetries(batchStep);
    await flush();
    let synthesis: ArtifactRef | undefined;
    if (definition.synthesis && !model.cancelled && model.fatal === undefined && model.counts.completed + model.counts.reused > 0) {
      model.phase = 'synthesis';
      publish();
      synthesis = await runSynthesis();
    }
    model.phase = 'writing_outputs';
    model.detail = undefined;
    publish();
    const completed = !model.cancelled && model.fatal === undefined;
    const outputs: PipelineOutputs = await fanIn.writePipelineOutputs({
      ...run, ledger: model.ledger, compareWithPrevious: input.compareWithPrevious === true, completed, ...(synthesis ? { synthesis } : {}),
    });
    model.outputs = outputs;
    model.phase = model.fatal !== undefined ? 'failed' : model.cancelled ? 'cancelled' : 'completed';
    model.detail = model.fatal;
    if (model.openAtService > 0) {
      model.note(`${model.openAtService} cancelled item(s) left a task open at the service (it waits at a checkpoint, which the service does not cancel): start the run again with the same run key to follow them; nothing is created again`);
    }
    publish();
    upsertSearchAttributes([{ key: ResearchCostUsdKey, value: model.ledger.spentUsd }]);
    await condition(allHandlersFinished);
    const { running: _running, ...counts } = model.counts;
    if (model.fatal !== undefined) {
      throw ApplicationFailure.create({ type: FailureType.PipelineRunFailed, nonRetryable: true, message: `${model.fatal} (outputs of what finished: ${outputs.folderUri})`, details: [{ counts, outputs }] });
    }
    return {
      pipeline: definition.name, runKey, status: model.cancelled ? 'cancelled' : 'completed', counts,
      ledger: { budgetUsd: model.ledger.budgetUsd, spentUsd: model.ledger.spentUsd }, outputs, executions: carried.executions,
      durationMs: Date.now() - carried.startedAt,
    };
  }

  /**
   * A `batch` step: the items go to the service's batch API, one service batch (a `researchBatchWorkflow`
   * child, tasks by reference) per round. A round takes the input from the cursor while the tasks'
   * prices fit the budget, at most `MAX_TASKS_PER_PIPELINE_BATCH`; failed tasks with attempts left run
   * again in a later round. The service runs a batch's tasks in parallel, so the window and start rate
   * do not apply; pause holds the next round (a service batch cannot be paused).
   */
  async function runBatchStep(): Promise<void> {
    for (;;) {
      changed = false;
      const decision = nextBatchRound(batchStep, { paused: model.paused, stopping: model.stopping, ledger: model.ledger });
      if (decision.kind === 'done') return;
      if (decision.kind === 'wait') {
        [model.phase, model.detail] = decision.reason === 'paused'
          ? ['paused', 'paused by an operator: send resumePipeline to start the next service batch']
          : ['waiting_for_budget', `the next task (${batchStep.blockedUsd ?? 0} USD) would pass the budget: raise it with the raiseBudget update, or cancel the run`];
        publish();
        await condition(() => changed);
        continue;
      }
      const round = batchStep.rounds;
      [model.phase, model.detail] = ['running', `preparing service batch ${round + 1}`];
      publish();
      let prepared: PreparedBatchRound;
      try {
        prepared = await fanIn.preparePipelineBatch({ ...run, take: decision.take, round, budgetLeftUsd: availableUsd(model.ledger) });
      } catch (error) {
        if (isCancellation(error)) throw error;
        // What finished is kept and written out; the run then fails with the reason.
        model.inputFailed(`the next service batch could not be prepared: ${failureMessage(error)}`);
        return;
      }
      batchStep = afterPrepared(batchStep, decision.take, { ...prepared, tasks: prepared.tasksRef?.count ?? 0 });
      if (batchStep.inputExhausted) model.batchInputDone();
      model.batchPrepared({ ...prepared, tasks: prepared.tasksRef?.count ?? 0 }, Date.now());
      if (prepared.tasksRef && prepared.itemsKey) await runBatchRound(round, prepared, prepared.tasksRef, prepared.itemsKey);
    }
  }

  async function runBatchRound(round: number, prepared: PreparedBatchRound, tasksRef: { key: string; count: number }, itemsKey: string): Promise<void> {
    const workflowId = researchBatchWorkflowId({ pipeline: definition.name, run: runKey, batch: `${info.firstExecutionRunId.slice(0, 8)}-${round + 1}` });
    model.detail = `service batch ${round + 1}: ${tasksRef.count} tasks in workflow ${workflowId}${model.paused ? ' (paused: the batch runs on; the next one waits)' : ''}`;
    publish();
    const child = await startChild<(input: ResearchBatchInput) => Promise<ResearchBatchResult>>('researchBatchWorkflow', {
      workflowId,
      args: [{ batch: prepared.batch, tasks: [], tasksRef, context: { pipeline: definition.name, run: runKey }, ...(input.polling ? { polling: input.polling } : {}) }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      staticSummary: `${definition.name} · run ${runKey} · service batch ${round + 1} (${tasksRef.count} tasks)`,
      staticDetails: `pipeline **${definition.name}**, run \`${runKey}\` (workflow \`${info.workflowId}\`)\n\nservice batch ${round + 1}: ${tasksRef.count} tasks${prepared.batch.mode ? `, mode ${prepared.batch.mode}` : ''}, ${prepared.reservedUsd} USD reserved`,
    });
    batchInFlight = workflowId;
    // The batch reports back even when cancelled (it cancels at the service and collects what finished).
    const settled = CancellationScope.nonCancellable(() => child.result()).then(
      (result): { result?: ResearchBatchResult; error?: string } => ({ result }),
      (error: unknown) => ({ error: failureMessage(error) }),
    );
    let outcome: { result?: ResearchBatchResult; error?: string };
    try {
      outcome = await Promise.race([settled, CancellationScope.current().cancelRequested]);
    } catch (error) {
      if (!isCancellation(error)) throw error;
      model.cancelled = true;
      outcome = await settled;
    } finally {
      batchInFlight = undefined;
    }
    const recorded = await CancellationScope.nonCancellable(() => fanIn.recordPipelineBatch({
      prefix, round, itemsKey, tasksKey: tasksRef.key, workflowId, manifests: outcome.result?.manifests ?? [], cancelled: model.cancelled,
      maxAttempts: 1 + definition.retries, ...(outcome.error !== undefined ? { batchError: `the service batch failed: ${outcome.error}` } : {}),
    }));
    model.batchSettled(prepared.reservedUsd, recorded, Date.now());
    if (recorded.retry) batchStep = { ...batchStep, retry: { from: 'retry', ...recorded.retry, skip: 0 } };
    publish();
    if (model.cancelled) await CancellationScope.current().cancelRequested;
  }

  /** Waits for a workflow this execution did not start to end (looking at it less and less often), and says how it ended. */
  async function followEnded(workflowId: string): Promise<LookedItemWorkflow> {
    for (let looks = 0; ; looks++) {
      const looked = await calls.lookItemWorkflow({ workflowId });
      if (looked.status !== 'running') return looked;
      await sleep(Math.min(5_000 * 2 ** looks, 10 * 60_000));
    }
  }

  /** The synthesis over the collected results, within the budget; a failure is noted, the outputs are still written. */
  async function runSynthesis(): Promise<ArtifactRef | undefined> {
    try {
      const { request, reserveUsd } = await fanIn.preparePipelineSynthesis(run);
      if (!fitsBudget(model.ledger, reserveUsd)) {
        model.note(`synthesis skipped: its ${reserveUsd} USD would pass the budget`);
        return undefined;
      }
      if (request.kind === 'deepresearch') {
        const start = (workflowId: string) => executeChild<(input: ResearchTaskInput) => Promise<ResearchTaskResult>>('researchTaskWorkflow', {
          workflowId,
          args: [{ request: request.request, context: { pipeline: definition.name, run: runKey, item: '~synthesis' }, ...(input.polling ? { polling: input.polling } : {}) }],
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
          // Terminated (the default) would leave its task open and paying at the service when the run ends.
          ...(patched('synthesis-request-cancel') ? { parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL } : {}),
          staticSummary: `${definition.name} · run ${runKey} · synthesis`,
        });
        const synthesisId = pipelineSynthesisWorkflowId(definition.name, runKey);
        let result: ResearchTaskResult;
        try {
          result = await start(synthesisId);
        } catch (error) {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError) || !patched('follow-found-synthesis')) throw error;
          // An earlier run of this run key started it (the run was resumed): its result is used, once it
          // ends, rather than paying for another; one that ended cancelled runs again under a new id.
          const found = await followEnded(synthesisId);
          result = found.status === 'completed' && found.result?.status === 'completed'
            ? found.result
            : await start(`${synthesisId}~${info.firstExecutionRunId.slice(0, 8)}`);
        }
        model.ledger = { ...model.ledger, spentUsd: model.ledger.spentUsd + (result.cost ?? 0) };
        return result.outputs.report;
      }
      const outcome = await itemCalls.runPipelineItem({ key: '~synthesis', request, prefix, reserveUsd });
      // An earlier attempt that sent the call and never reported back may have been charged too: counted.
      model.ledger = { ...model.ledger, spentUsd: model.ledger.spentUsd + outcome.costUsd + (outcome.possiblyChargedUsd ?? 0) };
      if (outcome.possiblyChargedUsd) model.note(`synthesis possibly charged twice: ${outcome.possiblyChargedUsd} USD (an earlier attempt sent the call and never reported back)`);
      return outcome.result;
    } catch (error) {
      model.note(`synthesis failed: ${failureMessage(error)}`);
      return undefined;
    }
  }
}

/** How an item's research task workflow that returned ended, as the run records it. */
function childOutcome(workflowId: string, result: ResearchTaskResult): ItemOutcome {
  return {
    status: result.status, costUsd: result.cost ?? result.outputs.cost ?? 0, workflowId, outputs: result.outputs,
    ...(result.openAtService ? { openAtService: { deepresearchId: result.deepresearchId, status: result.openAtService.status }, error: result.openAtService.detail } : {}),
  };
}

/** An adopted item's outcome, from its report or from a look at its workflow. */
function adoptedOutcome(workflowId: string, ended: Omit<ItemSettledReport, 'item' | 'workflowId'>): ItemOutcome {
  if (ended.status === 'completed' && ended.result) return childOutcome(workflowId, ended.result);
  if (ended.status === 'cancelled') return { status: 'cancelled', costUsd: 0, workflowId };
  return {
    status: 'failed', costUsd: ended.outputs?.cost ?? 0, workflowId, ...(ended.outputs ? { outputs: ended.outputs } : {}),
    error: ended.error ?? 'the item\'s workflow failed', ...(ended.failureType ? { failureType: ended.failureType } : {}),
  };
}

/** What earlier attempts of a failed item call may have been charged, as its failure's details say (see runPipelineItem). */
function earlierPossiblyCharged(error: unknown): number {
  const details = (error as { cause?: { details?: unknown[] } } | undefined)?.cause?.details ?? [];
  const found = details.find((detail): detail is { earlierPossiblyChargedUsd: number } => typeof (detail as { earlierPossiblyChargedUsd?: unknown } | null)?.earlierPossiblyChargedUsd === 'number');
  return found?.earlierPossiblyChargedUsd ?? 0;
}

/** The details an application failure carried (a failed research task carries its stored outputs). */
function failureDetails(error: unknown): unknown {
  const cause = (error as { cause?: { details?: unknown[] } } | undefined)?.cause;
  return Array.isArray(cause?.details) ? cause.details[0] : undefined;
}
