import { CancelledFailure, Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../domain/failures';
import { webhookRouteToken, type CallOptions } from '../api';

/** The running activity's context, or undefined outside an activity (plain unit calls). */
export function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/** Time kept back from an attempt's start-to-close budget, to report the outcome before the server gives up on it. */
export const ATTEMPT_REPORT_MARGIN_MS = 5_000;

/**
 * Milliseconds left in the running attempt's start-to-close budget (counted from when the attempt was
 * scheduled, which errs short), less the reporting margin; undefined outside an activity.
 */
export function attemptBudgetMs(now: number = Date.now()): number | undefined {
  const info = activityContext()?.info;
  if (!info?.startToCloseTimeoutMs) return undefined;
  return Math.max(1, info.currentAttemptScheduledTimestampMs + info.startToCloseTimeoutMs - ATTEMPT_REPORT_MARGIN_MS - now);
}

/**
 * Call options for a service call from an activity: the activity's cancellation signal, and a time
 * limit no later than the attempt's own, so an attempt never outlives its timeout and runs beside its
 * retry (for a paid create, that retry could not see what the first attempt created).
 */
export function callOptions(): CallOptions {
  const signal = activityContext()?.cancellationSignal;
  const budget = attemptBudgetMs();
  return { ...(signal ? { signal } : {}), ...(budget !== undefined ? { timeoutMs: budget } : {}) };
}

/** The attempt number of the running activity (1 outside an activity). */
export function currentAttempt(): number {
  return activityContext()?.info.attempt ?? 1;
}

/** When the running activity was first scheduled (epoch ms), before any attempt ran; undefined outside an activity. */
export function firstScheduledAt(): number | undefined {
  const info = activityContext()?.info;
  return info && info.scheduledTimestampMs > 0 ? info.scheduledTimestampMs : undefined;
}

/**
 * Throws the cancellation when the activity was cancelled. Temporal reports an activity as cancelled only
 * when it throws a `CancelledFailure` (or an AbortError) after the signal fired, so this must win over any
 * error mapping.
 */
export function throwIfCancelled(): void {
  const signal = activityContext()?.cancellationSignal;
  if (signal?.aborted) throw signal.reason ?? new CancelledFailure('activity cancelled');
}

/** The details each running activity last heartbeat, so a keep-alive beat repeats them instead of erasing them. */
const lastDetails = new WeakMap<Context, unknown>();

/** Records progress, which also lets the activity learn about a cancellation. */
export function heartbeat(details: unknown): void {
  const context = activityContext();
  if (!context) return;
  lastDetails.set(context, details);
  context.heartbeat(details);
}

/** Longest gap between keep-alive heartbeats (the SDK sends at most one per 80 % of the timeout anyway). */
export const KEEP_ALIVE_EVERY_MS = 5_000;

/**
 * Runs an activity so that it heartbeats while it waits, whenever its options set a heartbeat timeout: a
 * beat every third of the timeout (at most every 5 s) for as long as the activity runs, repeating the
 * details it last gave (or its previous attempt's). A service call can then take longer than the
 * heartbeat timeout without Temporal starting a retry beside it; only a worker that is gone (or frozen)
 * stops beating. How long one call may take is bounded by the attempt's start-to-close (`callOptions`).
 */
export function keepingAlive<Args extends unknown[], Result>(activity: (...args: Args) => Promise<Result>): (...args: Args) => Promise<Result> {
  return async (...args: Args): Promise<Result> => {
    const context = activityContext();
    const timeoutMs = context?.info.heartbeatTimeoutMs;
    if (!context || !timeoutMs) return activity(...args);
    const every = Math.max(100, Math.min(KEEP_ALIVE_EVERY_MS, Math.floor(timeoutMs / 3)));
    const timer = setInterval(() => context.heartbeat(lastDetails.has(context) ? lastDetails.get(context) : context.info.heartbeatDetails), every);
    try {
      return await activity(...args);
    } finally {
      clearInterval(timer);
    }
  };
}

/** The details of the last heartbeat of a previous attempt, if any. */
export function lastHeartbeatDetails(): unknown {
  return activityContext()?.info.heartbeatDetails;
}

/**
 * The intake URL the service should call for the running workflow,
 * `<base>/webhooks/research/<workflow id>/<route token>`, or undefined when no public intake is configured
 * (the workflow then relies on polling). The token (see `webhookRouteToken`) is made here, in the
 * activity, from the intake key: the URL goes to the service only and never into workflow history (the
 * create activities take the request without it and return no URL).
 */
export function webhookUrlFor(webhookBaseUrl: string | undefined, intakeKey: string | undefined): string | undefined {
  const workflowId = activityContext()?.info.workflowExecution?.workflowId;
  if (!webhookBaseUrl || !workflowId) return undefined;
  if (!intakeKey) throw new Error('an intake key is required to build webhook URLs (set INTAKE_KEY with INTAKE_PUBLIC_URL)');
  return `${webhookBaseUrl.replace(/\/+$/, '')}/webhooks/research/${encodeURIComponent(workflowId)}/${webhookRouteToken(intakeKey, workflowId)}`;
}

/**
 * A request's own `webhook_url` beside the worker's intake: the service takes one URL, and using the
 * request's would leave the workflow without its completion webhook (and the intake without the
 * secret's task). Refused before anything is sent, so nothing is paid; without an intake the request's
 * URL is used as given.
 */
export function refuseOwnWebhookUrl(requested: string | undefined, webhookBaseUrl: string | undefined): void {
  if (requested === undefined || !webhookBaseUrl) return;
  throw ApplicationFailure.create({
    type: FailureType.InvalidInput,
    nonRetryable: true,
    message:
      "the request names its own webhook_url, but this worker has an intake (INTAKE_PUBLIC_URL) whose completion webhook it must keep: drop webhook_url and name your receivers in a pipeline's notify:",
  });
}
