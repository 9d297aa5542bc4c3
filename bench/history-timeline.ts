// Where a run's wall time went, read from its histories: per activity type, how long tasks waited to
// be picked up and ran, how many ran at once on average, and how long the workflow took between an
// activity's end and the next command. `BENCH_TIMELINE=1 npm run bench:fanout -- …` prints it per run.
import { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type History = temporal.api.history.v1.IHistory;

/** One activity type's figures in one run. */
export interface ActivityTimes {
  name: string;
  count: number;
  /** Mean milliseconds from scheduled to started (waiting for a worker slot or a poll). */
  waitMs: number;
  /** Mean milliseconds from started to completed or failed. */
  runMs: number;
  /** Sum of run times over the run's span: how many of this type ran at once on average. */
  meanInFlight: number;
  /** Mean bytes of history its scheduled event (the input) and its completed event (the result) take. */
  inputBytes: number;
  resultBytes: number;
}

/** One run (execution) of a chain. */
export interface RunTimeline {
  events: number;
  spanMs: number;
  /** The history's size in bytes (what the server's history size limits count). */
  bytes: number;
  workflowTasks: number;
  /** Mean milliseconds a workflow task waited to be picked up, and ran. */
  workflowTaskWaitMs: number;
  workflowTaskRunMs: number;
  /** Mean milliseconds from an activity's end to the next activity scheduled after it. */
  activityEndToNextMs: number;
  activities: ActivityTimes[];
}

const eventBytes = (event: HistoryEvent): number => temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
const millis = (event: HistoryEvent): number => Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);
const mean = (sum: number, count: number): number => (count > 0 ? sum / count : 0);

/** The timeline of one run's history. */
export function runTimeline(history: History): RunTimeline {
  const events = history.events ?? [];
  const byId = new Map(events.map((event) => [Number(event.eventId), event]));
  const spanMs = events.length > 0 ? millis(events[events.length - 1]!) - millis(events[0]!) : 0;
  const types = new Map<string, { count: number; wait: number; run: number; input: number; result: number }>();
  let task = { count: 0, wait: 0, run: 0 };
  let gap = { count: 0, sum: 0 };
  let lastEnd: number | undefined;
  for (const event of events) {
    const ended = event.activityTaskCompletedEventAttributes ?? event.activityTaskFailedEventAttributes;
    if (ended) {
      const scheduled = byId.get(Number(ended.scheduledEventId));
      const started = byId.get(Number(ended.startedEventId));
      const name = scheduled?.activityTaskScheduledEventAttributes?.activityType?.name ?? '?';
      const figures = types.get(name) ?? { count: 0, wait: 0, run: 0, input: 0, result: 0 };
      if (scheduled && started) {
        figures.count += 1;
        figures.wait += millis(started) - millis(scheduled);
        figures.run += millis(event) - millis(started);
        figures.input += eventBytes(scheduled);
        figures.result += eventBytes(event);
      }
      types.set(name, figures);
      lastEnd = millis(event);
    } else if (event.activityTaskScheduledEventAttributes && lastEnd !== undefined) {
      gap = { count: gap.count + 1, sum: gap.sum + millis(event) - lastEnd };
      lastEnd = undefined;
    } else if (event.workflowTaskCompletedEventAttributes) {
      const scheduled = byId.get(Number(event.workflowTaskCompletedEventAttributes.scheduledEventId));
      const started = byId.get(Number(event.workflowTaskCompletedEventAttributes.startedEventId));
      if (scheduled && started)
        task = { count: task.count + 1, wait: task.wait + millis(started) - millis(scheduled), run: task.run + millis(event) - millis(started) };
    }
  }
  return {
    events: events.length,
    spanMs,
    bytes: temporal.api.history.v1.History.encode(history).finish().length,
    workflowTasks: task.count,
    workflowTaskWaitMs: mean(task.wait, task.count),
    workflowTaskRunMs: mean(task.run, task.count),
    activityEndToNextMs: mean(gap.sum, gap.count),
    activities: [...types].map(([name, figures]) => ({
      name,
      count: figures.count,
      waitMs: mean(figures.wait, figures.count),
      runMs: mean(figures.run, figures.count),
      meanInFlight: spanMs > 0 ? figures.run / spanMs : 0,
      inputBytes: mean(figures.input, figures.count),
      resultBytes: mean(figures.result, figures.count),
    })),
  };
}

/** Text lines for a chain's histories (latest first, as `chainHistories` gives them), printed first run first. */
export function timelineLines(histories: History[]): string[] {
  return [...histories].reverse().flatMap((history, index) => {
    const run = runTimeline(history);
    return [
      `run ${index + 1}: ${run.events} events (${(run.bytes / 1_048_576).toFixed(2)} MB) over ${(run.spanMs / 1000).toFixed(2)} s; ${run.workflowTasks} workflow tasks (wait ${run.workflowTaskWaitMs.toFixed(1)} ms, run ${run.workflowTaskRunMs.toFixed(1)} ms); activity end to next schedule ${run.activityEndToNextMs.toFixed(1)} ms`,
      ...run.activities.map(
        (activity) =>
          `  ${activity.name}: ${activity.count}, wait ${activity.waitMs.toFixed(1)} ms, run ${activity.runMs.toFixed(1)} ms, ${activity.meanInFlight.toFixed(2)} at once on average; ${(activity.inputBytes / 1024).toFixed(1)} KB in, ${(activity.resultBytes / 1024).toFixed(1)} KB out`,
      ),
    ];
  });
}
