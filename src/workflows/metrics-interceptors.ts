import { CancelledFailure, ContinueAsNew, isCancellation, metricMeter, workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { TASK_COST_METRIC, TASKS_METRIC, TASKS_STARTED_METRIC } from './metric-names';
import type { ResearchTaskResult } from '../domain/research-types';

/**
 * Counts research task workflows by how they ended. The SDK's workflow meter drops what is recorded
 * while a history replays, so each task counts once however often a worker replays it; a continue-as-new
 * is not an end. Started tasks are counted too, so `research_tasks_started_total - research_tasks_total`
 * is the number of tasks in flight.
 */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        if (workflowInfo().workflowType !== 'researchTaskWorkflow') return next(input);
        // The meter exists only inside a workflow context, so the instruments are made here.
        const tasks = metricMeter.createCounter(TASKS_METRIC, 'tasks', 'Research tasks by final status');
        const cost = metricMeter.createHistogram(TASK_COST_METRIC, 'float', 'USD', 'Cost of finished research tasks');
        const mode = (input.args[0] as { request?: { mode?: string } } | undefined)?.request?.mode ?? 'unknown';
        // A task starts once: its continued executions are the same task.
        if (workflowInfo().continuedFromExecutionRunId === undefined) {
          metricMeter.createCounter(TASKS_STARTED_METRIC, 'tasks', 'Research tasks started').add(1, { mode });
        }
        try {
          const result = (await next(input)) as ResearchTaskResult;
          tasks.add(1, { status: result.openAtService ? 'cancel_refused' : result.status, mode });
          if (typeof result.cost === 'number') cost.record(result.cost, { mode });
          return result;
        } catch (error) {
          // A task cancelled by request ends Canceled with its result in the failure's details.
          const ended = error instanceof CancelledFailure ? (error.details[0] as ResearchTaskResult | undefined) : undefined;
          if (ended?.deepresearchId !== undefined) {
            tasks.add(1, { status: ended.openAtService ? 'cancel_refused' : 'cancelled', mode });
            if (typeof ended.cost === 'number') cost.record(ended.cost, { mode });
          } else if (!(error instanceof ContinueAsNew)) tasks.add(1, { status: isCancellation(error) ? 'cancelled' : 'failed', mode });
          throw error;
        }
      },
    },
  ],
});
