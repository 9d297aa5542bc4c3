import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ApplicationFailure, ParentClosePolicy, WorkflowIdReusePolicy, condition, executeChild, patched, sleep } from '@temporalio/workflow';
import type { LookedItemWorkflow } from '../activities/item-workflows';
import type { ArtifactRef } from '../domain/artifacts';
import { itemCalls, shortCalls, sinkJobs, storeJobs } from './activity-proxies';
import { handlersFinished } from './continue-as-new';
import { failureMessage } from './failure-info';
import { FailureType } from '../domain/failures';
import { pipelineSynthesisWorkflowId } from '../domain/ids';
import { fitsBudget } from '../domain/budget';
import { synthesisSummary } from './pipeline-child-summaries';
import type { PipelineRun, RunStrategy } from './pipeline-run-context';
import type { PipelineOutputs, PipelineRunResult } from '../domain/pipeline-types';
import type { ResearchTaskInput } from './types';
import type { ResearchTaskResult } from '../domain/research-types';

/**
 * How every run ends, whichever strategy ran its items (call it outside the cancellation scope): waits
 * for what is in flight to report back, records everything that ended, runs the synthesis when the run
 * went well, fans the results in (JSONL, CSV, Markdown, change report), and returns or fails with the
 * outputs of what finished.
 */
export async function finishRun(run: PipelineRun, strategy: RunStrategy): Promise<PipelineRunResult> {
  const { model, definition } = run;
  // Cancelled children and activities report back; everything that ended is recorded.
  await condition(() => model.inFlight.size === 0);
  model.markUnstarted();
  model.counts.failed += strategy.unrunRetries();
  await run.flush();
  let synthesis: ArtifactRef | undefined;
  if (definition.synthesis && !model.cancelled && model.fatal === undefined && model.counts.completed + model.counts.reused > 0) {
    model.phase = 'synthesis';
    run.publish();
    synthesis = await runSynthesis(run);
  }
  model.phase = 'writing_outputs';
  model.detail = undefined;
  run.publish();
  const completed = !model.cancelled && model.fatal === undefined;
  const outputs: PipelineOutputs = await storeJobs.writePipelineOutputs({
    ...run.ref,
    ledger: model.ledger,
    compareWithPrevious: run.input.compareWithPrevious === true,
    completed,
    ...(synthesis ? { synthesis } : {}),
  });
  model.outputs = outputs;
  // Definitions from before sinks existed have none: their histories issue no new command.
  if ((definition.sinks ?? []).length > 0 && patched('sql-sinks')) {
    // Rows written as items settled are upserted again here, with every other item's: after those writes end.
    await run.rowsWritten();
    try {
      await sinkJobs.sinkPipelineRows({ definition, runKey: run.runKey, prefix: run.prefix });
    } catch (error) {
      model.note(`SQL sink not written: ${failureMessage(error)}`);
    }
  }
  model.phase = model.fatal !== undefined ? 'failed' : model.cancelled ? 'cancelled' : 'completed';
  model.detail = model.fatal;
  if (model.openAtService > 0) {
    model.note(
      `${model.openAtService} cancelled item(s) left a task open at the service (it waits at a checkpoint, which the service does not cancel): start the run again with the same run key to follow them; nothing is created again`,
    );
  }
  run.publish();
  run.showSpent();
  await run.notifier.finish(outputs);
  await handlersFinished();
  const { running: _running, ...counts } = model.counts;
  if (model.fatal !== undefined) {
    throw ApplicationFailure.create({
      type: FailureType.PipelineRunFailed,
      nonRetryable: true,
      message: `${model.fatal} (outputs of what finished: ${outputs.folderUri})`,
      details: [{ counts, outputs }],
    });
  }
  return {
    pipeline: definition.name,
    runKey: run.runKey,
    status: model.cancelled ? 'cancelled' : 'completed',
    counts,
    ledger: { budgetUsd: model.ledger.budgetUsd, spentUsd: model.ledger.spentUsd },
    outputs,
    executions: run.carried.executions,
    durationMs: Date.now() - run.carried.startedAt,
  };
}

/** The synthesis over the collected results, within the budget; a failure is noted, the outputs are still written. */
async function runSynthesis(run: PipelineRun): Promise<ArtifactRef | undefined> {
  const { model, definition, runKey } = run;
  try {
    const { request, reserveUsd } = await storeJobs.preparePipelineSynthesis(run.ref);
    if (!fitsBudget(model.ledger, reserveUsd)) {
      model.note(`synthesis skipped: its ${reserveUsd} USD would pass the budget`);
      return undefined;
    }
    if (request.kind === 'deepresearch') {
      const start = (workflowId: string) =>
        executeChild<(input: ResearchTaskInput) => Promise<ResearchTaskResult>>('researchTaskWorkflow', {
          workflowId,
          args: [{ request: request.request, context: run.childContext('~synthesis'), ...(run.input.polling ? { polling: run.input.polling } : {}) }],
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
          // Terminated (the default) would leave its task open and paying at the service when the run ends.
          ...(patched('synthesis-request-cancel') ? { parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL } : {}),
          staticSummary: synthesisSummary(run.identity),
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
        result =
          found.status === 'completed' && found.result?.status === 'completed'
            ? found.result
            : await start(`${synthesisId}~${run.firstExecutionRunId.slice(0, 8)}`);
      }
      model.ledger = { ...model.ledger, spentUsd: model.ledger.spentUsd + (result.cost ?? 0) };
      return result.outputs.report;
    }
    const outcome = await itemCalls.runPipelineItem({ key: '~synthesis', request, prefix: run.prefix, reserveUsd });
    // An earlier attempt that sent the call and never reported back may have been charged too: counted.
    model.ledger = { ...model.ledger, spentUsd: model.ledger.spentUsd + outcome.costUsd + (outcome.possiblyChargedUsd ?? 0) };
    if (outcome.possiblyChargedUsd)
      model.note(`synthesis possibly charged twice: ${outcome.possiblyChargedUsd} USD (an earlier attempt sent the call and never reported back)`);
    return outcome.result;
  } catch (error) {
    model.note(`synthesis failed: ${failureMessage(error)}`);
    return undefined;
  }
}

/** Waits for a workflow this execution did not start to end (looking at it less and less often), and says how it ended. */
async function followEnded(workflowId: string): Promise<LookedItemWorkflow> {
  for (let looks = 0; ; looks++) {
    const looked = await shortCalls.lookItemWorkflow({ workflowId });
    if (looked.status !== 'running') return looked;
    await sleep(Math.min(5_000 * 2 ** looks, 10 * 60_000));
  }
}
