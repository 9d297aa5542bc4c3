import { CancellationScope, CancelledFailure, isCancellation, patched } from '@temporalio/workflow';
import { definitionKinds } from '../pipelines/step-kind';
import { storeJobs } from './activity-proxies';
import { failureMessage } from './failure-info';
import { ServiceBatchStrategy } from './pipeline-batch-strategy';
import { handlePipelineMessages } from './pipeline-handlers';
import { PipelineRun, type RunStrategy } from './pipeline-run-context';
import { finishRun } from './pipeline-run-finish';
import type { PipelineRunInput, PipelineRunResult } from '../domain/pipeline-types';
import { WindowStrategy } from './pipeline-window-strategy';

/**
 * One run of a pipeline definition: checks the input's keys before anything is spent, works through
 * the items with the strategy its step needs (a sliding window of research task children and
 * Answer/Search/Contents activities, or rounds of service batches for a `batch` step), records each
 * item in the artifact store, and fans the results in. Pause, resume, budget raises and the state
 * query work the same under either strategy.
 */
export async function pipelineRunWorkflow(input: PipelineRunInput): Promise<PipelineRunResult> {
  const run = new PipelineRun(input);
  // A `steps:` definition runs its items through the window, one step after another (never as a batch).
  const kinds = definitionKinds(input.definition);
  const strategy: RunStrategy =
    input.definition.step && kinds[0] === 'batch'
      ? new ServiceBatchStrategy(run)
      : new WindowStrategy(
          run,
          kinds.some((kind) => kind === 'deepresearch' || kind === 'workflow'),
        );
  handlePipelineMessages(run, strategy);
  run.showPipeline();
  run.publish();
  try {
    // A continued run was checked by its first execution; a single item has no key to repeat.
    if (!input.carried && input.source.kind !== 'single' && patched('check-keys-before-spending')) await checkKeys(run);
    await strategy.runItems();
  } catch (error) {
    if (!isCancellation(error)) throw error;
    run.model.cancelled = true;
  }
  const result = await CancellationScope.nonCancellable(() => finishRun(run, strategy));
  // Cancelled by request: the outputs are written; the run ends Canceled, as Temporal's UI and clients
  // expect, and its state query keeps the counts, the ledger and where the outputs are.
  if (result.status === 'cancelled' && CancellationScope.current().consideredCancelled && patched('end-canceled'))
    throw new CancelledFailure(
      `run ${result.pipeline}/${result.runKey} cancelled: ${result.counts.completed} completed, ${result.counts.cancelled} cancelled, spent ${result.ledger.spentUsd.toFixed(2)} USD; outputs: ${result.outputs.folderUri}`,
      [result],
    );
  return result;
}

/**
 * Two items with one key would share a workflow id and a record: one outcome lost, both paid. The
 * whole input is checked once, before anything is spent. A refused input (repeated keys, or one that
 * cannot be read to its end) leaves the run stopping: it starts nothing, and the finish writes the
 * outputs and says why.
 */
async function checkKeys(run: PipelineRun): Promise<void> {
  const { input, model } = run;
  try {
    const check = await storeJobs.checkPipelineKeys({
      definition: input.definition,
      source: input.source,
      params: input.params,
      runKey: run.runKey,
      runDate: run.carried.runDate,
    });
    if (check.problem) model.inputFailed(check.problem);
  } catch (error) {
    if (isCancellation(error)) throw error;
    model.inputFailed(`the input cannot be read to its end, so nothing was started: ${failureMessage(error)}`);
  }
}
