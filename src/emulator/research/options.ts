import { z } from 'zod';

const MINUTE = 60_000;

/** Webhook delivery settings and faults (all times in emulator-clock milliseconds unless noted). */
export const webhookOptions = z.strictObject({
  /** Attempts per webhook before it counts as failed (the first try included). */
  maxAttempts: z.int('must be an integer').min(1, 'must be from 1 to 10').max(10, 'must be from 1 to 10').default(4),
  /** Wait before the second attempt; doubles for each later one. */
  backoffMs: z.number().nonnegative('must be at least 0').default(30_000),
  /** Real-time limit of one HTTP attempt (network I/O is real even when the clock is fake). */
  attemptTimeoutMs: z.number().positive('must be more than 0').default(10_000),
  /** Share of webhooks never sent. */
  loss: z.number().min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1').default(0),
  /** Share of webhooks delivered twice (same `delivery_id`, fresh signature). */
  duplicate: z.number().min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1').default(0),
  /** Extra delay before the first attempt. */
  delayMs: z.number().nonnegative('must be at least 0').default(0),
  /** Hold webhooks and release them newest first, so receivers see them out of order. */
  reorder: z.boolean().default(false),
  /** How many held webhooks trigger a release when `reorder` is on. */
  reorderWindow: z.int('must be an integer').min(2, 'must be at least 2 (one webhook cannot be out of order)').default(3),
  /** Longest a held webhook waits for its window to fill. */
  reorderHoldMs: z.number().positive('must be more than 0').default(60_000),
});
/** Webhook settings with defaults applied. */
export type WebhookOptions = z.output<typeof webhookOptions>;

/** Tunables of DeepResearch tasks and batches; every field has a default, so `{}` is a valid input. */
export const researchOptions = z.strictObject({
  /** Most tasks running at once across the emulator; the rest wait as `queued`. */
  capacity: z.int().min(1).default(100),
  /** Work time of a task per mode (excludes time queued or waiting at a checkpoint). */
  durationsMs: z
    .strictObject({
      fast: z
        .number()
        .positive()
        .default(3 * MINUTE),
      standard: z
        .number()
        .positive()
        .default(15 * MINUTE),
      heavy: z
        .number()
        .positive()
        .default(45 * MINUTE),
      max: z
        .number()
        .positive()
        .default(90 * MINUTE),
    })
    .prefault({}),
  /** Each task's duration is scaled by a seeded factor in [1 - jitter, 1 + jitter]. */
  durationJitter: z.number().min(0).max(0.9).default(0.2),
  /** Share of tasks that fail part-way (seeded). */
  failureRate: z.number().min(0).max(1).default(0),
  /** How long a checkpoint waits for an answer before the task is `paused`. */
  checkpointTimeoutMs: z
    .number()
    .positive()
    .default(5 * MINUTE),
  /** USD added to the mode price for each enabled optional tool. */
  toolSurchargesUsd: z
    .strictObject({
      code_execution: z.number().nonnegative().default(0.1),
      screenshots: z.number().nonnegative().default(0.05),
      browser_use: z.number().nonnegative().default(0.2),
      charts: z.number().nonnegative().default(0.05),
    })
    .prefault({}),
  webhooks: webhookOptions.prefault({}),
  /** Completed tasks whose generated outputs are kept in memory; others are regenerated on read. */
  outputCacheSize: z.int().min(1).default(256),
});
/** Options as a caller writes them (all optional). */
export type ResearchOptionsInput = z.input<typeof researchOptions>;
/** Options with defaults applied. */
export type ResearchOptions = z.output<typeof researchOptions>;
