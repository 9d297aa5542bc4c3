import type { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { ResearchApiError } from '../api';

/** Research service calls that failed an activity attempt, by HTTP status (`network`/`timeout` without one) and failure type. */
export const SERVICE_ERRORS_METRIC = 'research_service_errors_total';

/** The HTTP status (or kind) of a research service error, whether still raw or already an ApplicationFailure. */
export function serviceErrorStatus(error: unknown): { status: string; type: string } | undefined {
  if (error instanceof ResearchApiError) return { status: String(error.status ?? error.kind), type: error.kind };
  if (error instanceof ApplicationFailure) {
    const detail = error.details?.[0] as { name?: unknown; status?: unknown; kind?: unknown } | undefined;
    if (detail?.name !== 'ResearchApiError') return undefined;
    return { status: String(typeof detail.status === 'number' ? detail.status : detail.kind), type: error.type ?? 'unknown' };
  }
  return undefined;
}

/** An activity interceptor counting research service errors on the worker's metric meter (Prometheus). */
export const serviceErrorMetrics: ActivityInterceptorsFactory = (ctx: Context) => {
  const errors = ctx.metricMeter.createCounter(SERVICE_ERRORS_METRIC, 'errors', 'Research service errors by HTTP status');
  return {
    inbound: {
      async execute(input, next) {
        try {
          return await next(input);
        } catch (error) {
          const seen = serviceErrorStatus(error);
          if (seen) errors.add(1, { status: seen.status, failure_type: seen.type });
          throw error;
        }
      },
    },
  };
};
