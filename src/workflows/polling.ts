import type { ResearchMode, TaskStatus } from '../api/schemas';
import type { PollingOverrides } from '../domain/research-types';

const MINUTE = 60_000;

/** A mode's poll profile: first and longest delay, and how long its tasks typically work. */
export interface PollProfile {
  initialDelayMs: number;
  maxDelayMs: number;
  /** Shortest and longest typical duration: fast 2-5 min, standard 10-20, heavy 30-90. */
  typicalMs: readonly [number, number];
  /**
   * Once the task could be done, polls are this share of the time elapsed apart (between the first and
   * longest delay), so a finished task is seen within about this share of its time.
   */
  elapsedShare: number;
}

/**
 * Poll profiles per mode. Fast tasks are polled at a fortieth of their time, not a tenth: they are the
 * ones pipelines run by the hundred, and a window slot held by a task that finished unseen is lost
 * throughput in the same share (a 3-minute task costs about 14 reads instead of 8; the official clients'
 * 5-second loop costs 37).
 */
export const POLL_PROFILES: Readonly<Record<ResearchMode, PollProfile>> = {
  fast: { initialDelayMs: 5_000, maxDelayMs: 20_000, typicalMs: [2 * MINUTE, 5 * MINUTE], elapsedShare: 1 / 40 },
  standard: { initialDelayMs: 10_000, maxDelayMs: 60_000, typicalMs: [10 * MINUTE, 20 * MINUTE], elapsedShare: 1 / 10 },
  heavy: { initialDelayMs: 15_000, maxDelayMs: 120_000, typicalMs: [30 * MINUTE, 90 * MINUTE], elapsedShare: 1 / 10 },
  max: { initialDelayMs: 20_000, maxDelayMs: 180_000, typicalMs: [60 * MINUTE, 180 * MINUTE], elapsedShare: 1 / 10 },
};

/** A paused task moves only when someone answers, and answers come through the workflow: look rarely (ten times the cap, at most this). */
export const PAUSED_POLL_DELAY_MS = 15 * 60_000;

/**
 * While a checkpoint waits for a person, answers arrive through the workflow (and wake it), so a poll
 * only notices the service pausing the checkpoint (about 5 minutes unanswered): look five times the
 * cap apart, at most this. Polling at the cap instead added thousands of events a day to the history.
 */
export const AWAITING_INPUT_POLL_DELAY_MS = 5 * 60_000;

/**
 * While an enabled checkpoint may still come, polls are at most this far apart (scaled like the quiet
 * time when the initial delay is overridden): the service sends no webhook for a checkpoint, so a person
 * hears of one only when a poll sees it, and a question unseen for minutes is minutes of nobody
 * answering (and of the service's pause timer running).
 */
export const CHECKPOINT_WATCH_MAX_DELAY_MS = 30_000;

/** With a completion webhook, polling is only a fallback for lost webhooks: this much slower. */
export const WEBHOOK_FALLBACK_FACTOR = 4;

/** What the next poll delay depends on. */
export interface PollDelayInput {
  mode: ResearchMode;
  status: TaskStatus;
  /** Time since the task was created. */
  elapsedMs: number;
  /** A completion webhook was requested, so polls only need to catch checkpoints and lost webhooks. */
  webhookConfigured: boolean;
  /** Checkpoints (which send no webhook) may still come. */
  checkpointsAhead: boolean;
  overrides?: PollingOverrides;
}

/**
 * When no checkpoint can come, nothing is worth a poll before the task could be done: until this much
 * time after creation the next poll waits. Without a webhook that is the mode's shortest typical
 * duration (a finished task is then seen within a tenth of its time at most, in about 7 polls for a
 * 15-minute standard task); with one, the longest (the webhook says when it is done, and the poll only
 * catches a lost webhook). An overridden initial delay scales these times by the same factor (tests
 * and `rp dev` run the service's clock faster). The cost: a task that fails early without a webhook is
 * seen at the shortest typical duration, not at once.
 */
export function quietUntilMs(mode: ResearchMode, webhookConfigured: boolean, overrides?: PollingOverrides): number {
  const profile = POLL_PROFILES[mode];
  const scale = overrides?.initialDelayMs !== undefined ? overrides.initialDelayMs / profile.initialDelayMs : 1;
  return Math.round(profile.typicalMs[webhookConfigured ? 1 : 0] * scale);
}

/**
 * Delay before the next status poll. While a checkpoint may still come: short at first, growing with
 * elapsed time (a tenth of it), capped per mode. Otherwise it first waits out the quiet time (see
 * quietUntilMs), then polls on a fixed grid of times since creation (see `nextGridPointMs`), four times
 * sparser when a webhook will announce completion. Rare while a checkpoint waits for a person, rarer once
 * it is paused.
 */
export function nextPollDelayMs(input: PollDelayInput): number {
  const profile = POLL_PROFILES[input.mode];
  const initial = input.overrides?.initialDelayMs ?? profile.initialDelayMs;
  const max = Math.max(initial, input.overrides?.maxDelayMs ?? profile.maxDelayMs);
  if (input.status === 'paused') return Math.min(PAUSED_POLL_DELAY_MS, max * 10);
  if (input.status === 'awaiting_input') return Math.min(AWAITING_INPUT_POLL_DELAY_MS, max * 5);
  if (!input.checkpointsAhead) {
    const quiet = quietUntilMs(input.mode, input.webhookConfigured, input.overrides);
    if (input.elapsedMs < quiet) return quiet - input.elapsedMs;
    const factor = input.webhookConfigured ? WEBHOOK_FALLBACK_FACTOR : 1;
    const step = (at: number) => factor * Math.min(max, Math.max(initial, Math.round(at * profile.elapsedShare)));
    return nextGridPointMs(quiet, input.elapsedMs, step, factor * max) - input.elapsedMs;
  }
  const adaptive = Math.min(max, Math.max(initial, Math.round(input.elapsedMs / 10)));
  const scale = input.overrides?.initialDelayMs !== undefined ? input.overrides.initialDelayMs / profile.initialDelayMs : 1;
  return Math.min(adaptive, Math.max(initial, Math.round(CHECKPOINT_WATCH_MAX_DELAY_MS * scale)));
}

/**
 * The first poll time after `elapsedMs` on the grid that starts at `startMs` and goes on by `step(at)`
 * (growing, at most `maxStep`). The grid is fixed in time since creation, so the worker's own delay in
 * each poll (timer, activity, HTTP) does not push the following polls later: a task is seen at most one
 * step plus one poll's delay after it finishes.
 */
export function nextGridPointMs(startMs: number, elapsedMs: number, step: (at: number) => number, maxStep: number): number {
  let at = startMs;
  while (at <= elapsedMs) {
    const next = Math.max(1, step(at));
    // Past the growing part every step is the longest: jump straight to the point after `elapsedMs`.
    if (next >= maxStep) return at + (Math.floor((elapsedMs - at) / next) + 1) * next;
    at += next;
  }
  return at;
}

/** When the next status read should reach the service, and how long to wait for it. */
export interface NextLook {
  /** Time since creation the read is aimed at. */
  aimMs: number;
  /** How long to wait from now before asking for it. */
  delayMs: number;
}

/**
 * Aims the next status read at the schedule's next time, asking for it `leadMs` early: the round trip
 * the last read took (workflow task, activity, HTTP), at most the mode's first delay. Without the lead a
 * read reaches the service that long after its time, and the task is seen that much later. Each read is
 * aimed past the one before (`lastAimMs`), so a quicker round trip never aims two reads at one time.
 */
export function aimNextLook(input: PollDelayInput & { leadMs: number; lastAimMs: number }): NextLook {
  const profile = POLL_PROFILES[input.mode];
  const lead = Math.max(0, Math.min(input.leadMs, input.overrides?.initialDelayMs ?? profile.initialDelayMs));
  const from = Math.max(input.elapsedMs + lead, input.lastAimMs);
  const aimMs = from + nextPollDelayMs({ ...input, elapsedMs: from });
  return { aimMs, delayMs: Math.max(0, aimMs - lead - input.elapsedMs) };
}

/** Delays between checks of the task list after a create whose outcome is unknown. */
export const RECONCILE_DELAYS_MS: readonly number[] = [5_000, 15_000, 30_000, 60_000];

/**
 * Delay before reading a task's status again after a read failed for good (its activity's retries are
 * spent: an answer the client refuses, a status outside the spec, a 404 while the service catches up):
 * the task still exists at the service and is still followed. Doubles from the mode's first poll delay
 * with each failure in a row, up to the mode's cap.
 */
export function readRetryDelayMs(mode: ResearchMode, failuresInARow: number, overrides?: PollingOverrides): number {
  const profile = POLL_PROFILES[mode];
  const initial = overrides?.initialDelayMs ?? profile.initialDelayMs;
  const max = Math.max(initial, overrides?.maxDelayMs ?? profile.maxDelayMs);
  return Math.min(max, initial * 2 ** Math.max(0, Math.min(20, failuresInARow - 1)));
}
