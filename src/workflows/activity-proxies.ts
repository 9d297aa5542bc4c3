import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import { batchAdd, createCall, handlerCall, itemCall, lookup, notifyCall, shortCall, sinkChunk, sinkJob, storeJob } from './activity-options';

type Activities = ReturnType<typeof createActivities>;

// One proxy per option set, declared once: which retries and timeouts a call gets is chosen by the name
// the workflow calls it through, and the audit in test/workflows/activity-options.test.ts covers each.

/** One call to the service or the store, retried with backoff (`shortCall`). */
export const shortCalls = proxyActivities<Activities>(shortCall);
/** Creating a paid research task: an ambiguous outcome is reconciled before any resend (`createCall`). */
export const createCalls = proxyActivities<Activities>(createCall);
/** One paid Answer, Search or Contents item: a few tries, then the run's own retries (`itemCall`). */
export const itemCalls = proxyActivities<Activities>(itemCall);
/** Long, heartbeating work against the artifact store (`storeJob`). */
export const storeJobs = proxyActivities<Activities>(storeJob);
/** A call made for a message handler: a few quick tries, so the update answers (`handlerCall`). */
export const handlerCalls = proxyActivities<Activities>(handlerCall);
/** Adding a chunk of tasks to a service batch, heartbeating while it reconciles (`batchAdd`). */
export const batchAdds = proxyActivities<Activities>(batchAdd);
/** A lookup the workflow can go on without: a few quick tries (`lookup`). */
export const lookups = proxyActivities<Activities>(lookup);
/** A run notification to one receiver, retried with backoff for about two hours (`notifyCall`). */
export const notifyCalls = proxyActivities<Activities>(notifyCall);
/** Writing a run's rows to its SQL sinks, retried with backoff for about two hours (`sinkJob`). */
export const sinkJobs = proxyActivities<Activities>(sinkJob);
/** Writing the SQL rows of one chunk of records as the run goes: a few quick tries (`sinkChunk`). */
export const sinkChunks = proxyActivities<Activities>(sinkChunk);
