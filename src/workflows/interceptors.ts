import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { activitySummary } from './activity-summaries';

/**
 * Workflow interceptors the worker bundles with the workflows: every activity the workflows schedule
 * gets a one-line summary for the Temporal UI (unless the call set its own).
 */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      scheduleActivity(input, next) {
        if (input.options.summary) return next(input);
        const summary = activitySummary(input.activityType, input.args[0]);
        return next(summary ? { ...input, options: { ...input.options, summary } } : input);
      },
    },
  ],
});
