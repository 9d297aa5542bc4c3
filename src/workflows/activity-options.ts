import type { ActivityOptions, RetryPolicy } from '@temporalio/workflow';
import { NON_RETRYABLE_FAILURE_TYPES } from '../domain/failures';

const retry: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  nonRetryableErrorTypes: [...NON_RETRYABLE_FAILURE_TYPES],
};

/**
 * One HTTP call to the service: short, retried with backoff (429 waits for `Retry-After`). A call that
 * outlasts 5 s heartbeats, so a worker killed mid-call is noticed in 20 s rather than at the timeout.
 */
export const shortCall: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '20 seconds',
  retry,
};

/**
 * Creating a paid task: ambiguous outcomes fail without retry so the workflow reconciles first. It
 * heartbeats while the call waits, so a worker killed mid-create is noticed in 20 s (not at the 2-minute
 * timeout) and the retry, which looks for the task before sending, runs on another worker.
 */
export const createCall: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { ...retry, maximumAttempts: 20 },
};

/**
 * One Answer, Search or Contents item (a paid call): a few tries, then the run's own retries (`retries`)
 * take over. It heartbeats while the call waits, so a slow call is not retried beside itself, and a
 * worker that dies mid-call is noticed within 20 s.
 */
export const itemCall: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { ...retry, maximumAttempts: 3 },
};

/**
 * Long work against the artifact store (downloading a task's outputs, a batch's pages; reading a run's
 * whole input, preparing or recording a service batch round, writing a run's outputs): heartbeating,
 * resumable from heartbeat details.
 */
export const storeJob: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry,
};

/**
 * A call made for a message handler (a checkpoint answer, an instruction): a few quick tries, then the
 * update fails with the reason. Unbounded retries would block the caller and keep the workflow from
 * ever seeing all its handlers finished while the service is down.
 */
export const handlerCall: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '2 minutes',
  retry: { ...retry, maximumAttempts: 3 },
};

/**
 * Adding up to 100 tasks to a batch, after paging through the ids it has when reconciling: it heartbeats
 * while it works, so a large batch may take minutes and a stuck call is noticed in 30 seconds.
 */
export const batchAdd: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry,
};

/** A lookup the workflow can do without (reconciling a lost create): a few quick tries, then it moves on. */
export const lookup: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { ...retry, maximumAttempts: 3 },
};

/**
 * A run notification to one receiver: each attempt waits at most 15 s for its answer; a receiver that is
 * down is tried again with backoff (5 s doubling to 10 minutes) for about two hours, then the run notes
 * the failure and goes on. Nothing is paid, so no heartbeat is needed.
 */
export const notifyCall: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { ...retry, initialInterval: '5 seconds', maximumInterval: '10 minutes', maximumAttempts: 18 },
};

/**
 * Writing a run's rows to a SQL sink: heartbeating while it works; a database that is down is tried
 * again with backoff (to 10 minutes apart) for about two hours, then the run notes it and ends.
 */
export const sinkJob: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { ...retry, initialInterval: '5 seconds', maximumInterval: '10 minutes', maximumAttempts: 18 },
};

/**
 * Writing the SQL rows of one chunk of item records as the run goes: a few quick tries, then the run notes
 * it and relies on its final write (`sinkJob`), which covers every item; a database that is down never
 * holds the run for long.
 */
export const sinkChunk: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '1 minute',
  scheduleToCloseTimeout: '5 minutes',
  retry: { ...retry, initialInterval: '2 seconds', maximumAttempts: 3 },
};

/**
 * Every named option set, for the audit that each paid call is covered (test/workflows/activity-options.test.ts).
 * Workflows reach activities only through the proxies of `activity-proxies.ts`, one per set.
 */
export const ACTIVITY_OPTION_PRESETS: Readonly<Record<string, ActivityOptions>> = {
  shortCall,
  createCall,
  itemCall,
  storeJob,
  handlerCall,
  batchAdd,
  lookup,
  notifyCall,
  sinkJob,
  sinkChunk,
};
