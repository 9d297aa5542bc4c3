import { setHandler } from '@temporalio/workflow';
import { sequenceSteps } from '../pipelines/step-kind';
import { described } from './definitions';
import { budgetRaiseProblem } from './message-checks';
import {
  batchSettledSignal,
  itemSettledSignal,
  itemWaitingSignal,
  pausePipelineSignal,
  pipelineRunStateQuery,
  raiseBudgetUpdate,
  resumePipelineSignal,
} from './pipeline-definitions';
import { itemSettledProblem, itemWaitingProblem, operatorSignalProblem } from './pipeline-progress';
import type { PipelineRun, RunStrategy } from './pipeline-run-context';

/**
 * Registers the run's query, signals and update. A refused payload is noted in the state (a signal
 * cannot answer); a budget raise is checked by its validator before it is accepted.
 */
export function handlePipelineMessages(run: PipelineRun, strategy: RunStrategy): void {
  const { model } = run;
  const steps = sequenceSteps(run.definition).map(({ id, kind }) => ({ id, kind }));
  setHandler(
    pipelineRunStateQuery,
    () => ({ ...model.toState(run.runKey, run.carried.executions, Date.now()), ...(steps.length > 0 ? { steps } : {}) }),
    described(pipelineRunStateQuery),
  );
  setHandler(
    pausePipelineSignal,
    (payload) => {
      const problem = operatorSignalProblem(payload);
      if (problem) return model.reject(`pausePipeline refused: ${problem}`);
      model.paused = true;
      run.wake();
    },
    described(pausePipelineSignal),
  );
  setHandler(
    resumePipelineSignal,
    (payload) => {
      const problem = operatorSignalProblem(payload);
      if (problem) return model.reject(`resumePipeline refused: ${problem}`);
      model.paused = false;
      model.creditsExhausted = false;
      strategy.resumed();
      run.wake();
    },
    described(resumePipelineSignal),
  );
  setHandler(
    itemWaitingSignal,
    (notice) => {
      const problem = itemWaitingProblem(notice);
      if (problem) return model.reject(`pipelineItemWaiting refused: ${problem}`);
      model.noteWaiting(notice.item, notice.waiting, Date.now());
      run.publish();
    },
    described(itemWaitingSignal),
  );
  setHandler(
    itemSettledSignal,
    (report) => {
      const problem = itemSettledProblem(report);
      if (problem) return model.reject(`pipelineItemSettled refused: ${problem}`);
      strategy.itemSettled(report);
    },
    described(itemSettledSignal),
  );
  setHandler(
    batchSettledSignal,
    (report) => {
      if (typeof report?.workflowId !== 'string' || typeof report.result !== 'object' || report.result === null)
        return model.reject('pipelineBatchSettled refused: give {workflowId, result}');
      strategy.batchSettled?.(report);
    },
    described(batchSettledSignal),
  );
  setHandler(
    raiseBudgetUpdate,
    (raise) => {
      const ledger = model.raise(raise);
      run.wake();
      return ledger;
    },
    {
      ...described(raiseBudgetUpdate),
      validator: (raise) => {
        const problem = budgetRaiseProblem(model.ledger, raise);
        if (problem) throw new Error(problem);
      },
    },
  );
}
