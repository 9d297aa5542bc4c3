import type { ResearchMode, TaskStatus } from '../api/schemas';
import type { PollingOverrides } from './types';

/** First and longest poll delay per mode, scaled to typical durations (fast 2-5 min … heavy up to 90). */
export const POLL_PROFILES: Readonly<Record<ResearchMode, { initialDelayMs: number; maxDelayMs: number }>> = {
  fast: { initialDelayMs: 5_000, maxDelayMs: 20_000 },
  standard: { initialDelayMs: 10_000, maxDelayMs: 60_000 },
  heavy: { initialDelayMs: 15_000, maxDelayMs: 120_000 },
  max: { initialDelayMs: 20_000, maxDelayMs: 180_000 },
};

/** A paused task moves only when someone answers, and answers come through the workflow: look rarely (ten times the cap, at most this). */
export const PAUSED_POLL_DELAY_MS = 15 * 60_000;

/**
 * While a checkpoint waits for a person, answers arrive through the workflow (and wake it), so a poll
 * only notices the service pausing the checkpoint (about 5 minutes unanswered): look five times the
 * cap apart, at most this. Polling at the cap instead added thousands of events a day to the history.
 */
export const AWAITING_INPUT_POLL_DELAY_MS = 5 * 60_000;

/** With a completion webhook, polling is only a fallback for lost webhooks: this much slower. */
export const WEBHOOK_FALLBACK_FACTOR = 4;

/**
 * How long a task of each mode typically takes at most (fast 2-5 min, standard 10-20, heavy up to 90):
 * with a completion webhook and no checkpoint ahead, the first fallback poll waits until then, since
 * the webhook will say sooner when the task ends; a task that finishes on time costs no poll in between.
 */
export const TYPICAL_MAX_DURATION_MS: Readonly<Record<ResearchMode, number>> = {
  fast: 5 * 60_000,
  standard: 20 * 60_000,
  heavy: 90 * 60_000,
  max: 180 * 60_000,
};

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
 * Delay before the next status poll: short at first, growing with elapsed time (a tenth of it), capped
 * per mode; with a webhook that will announce completion and no checkpoint to come, a first fallback poll at the
 * mode's typical end (`TYPICAL_MAX_DURATION_MS`), then slower polls; rare while a
 * checkpoint waits for a person, rarer once it is paused.
 */
export function nextPollDelayMs(input: PollDelayInput): number {
  const profile = POLL_PROFILES[input.mode];
  const initial = input.overrides?.initialDelayMs ?? profile.initialDelayMs;
  const max = Math.max(initial, input.overrides?.maxDelayMs ?? profile.maxDelayMs);
  if (input.status === 'paused') return Math.min(PAUSED_POLL_DELAY_MS, max * 10);
  if (input.status === 'awaiting_input') return Math.min(AWAITING_INPUT_POLL_DELAY_MS, max * 5);
  const adaptive = Math.min(max, Math.max(initial, Math.round(input.elapsedMs / 10)));
  if (input.webhookConfigured && !input.checkpointsAhead) {
    const fallback = Math.min(max * WEBHOOK_FALLBACK_FACTOR, adaptive * WEBHOOK_FALLBACK_FACTOR);
    const expectedEnd = input.overrides?.webhookFirstFallbackMs ?? TYPICAL_MAX_DURATION_MS[input.mode];
    return Math.max(fallback, expectedEnd - input.elapsedMs);
  }
  return adaptive;
}

/** Delays between checks of the task list after a create whose outcome is unknown. */
export const RECONCILE_DELAYS_MS: readonly number[] = [5_000, 15_000, 30_000, 60_000];
