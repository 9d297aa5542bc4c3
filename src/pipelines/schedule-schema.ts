import { Cron } from 'croner';
import { z } from 'zod';

/** Temporal's schedule overlap policies, in the definition's lower-case spelling. */
export const OVERLAP_POLICIES = ['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'terminate_other', 'allow_all'] as const;

const MACROS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@hourly'];

/** Why `cron` is not five fields (or a macro) that croner accepts, or undefined when it is valid. */
export function cronProblem(cron: string): string | undefined {
  const text = cron.trim();
  const shape = 'must be a cron expression of 5 fields (minute hour day-of-month month day-of-week) or one of @hourly, @daily, @weekly, @monthly, @yearly';
  if (!MACROS.includes(text) && text.split(/\s+/).length !== 5) return shape;
  try {
    new Cron(text, { paused: true });
    return undefined;
  } catch (error) {
    return `${shape} (${error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error)})`;
  }
}

/** True when the runtime knows `zone` as an IANA time zone. */
export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The next `count` times a schedule fires, for dry runs to show that the cron means what was intended. */
export function nextScheduleTimes(cron: string, timezone: string, count: number, from: Date = new Date()): Date[] {
  return new Cron(cron.trim(), { paused: true, timezone }).nextRuns(count, from);
}

/** `schedule`: when a Temporal Schedule starts the pipeline, and with which parameter values. */
export const scheduleSchema = z
  .strictObject({
    cron: z.string().superRefine((cron, ctx) => {
      const problem = cronProblem(cron);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
    timezone: z.string().refine(isValidTimeZone, 'must be an IANA time zone such as Europe/Berlin').default('UTC'),
    overlap: z.enum(OVERLAP_POLICIES).default('skip'),
    set: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .optional()
      .meta({ description: 'Parameter values for scheduled runs (as --set gives them on the command line)' }),
  })
  .meta({ description: 'Run the pipeline on a cron in a time zone; overlap says what happens when a run is still going' });
