import { z } from 'zod';
import { webhookUrlProblem } from '../api/schemas/webhook-url';

/** The most receivers a definition or a trigger names. */
export const MAX_NOTIFY_URLS = 10;

/** A receiver of run notifications: HTTPS, or plain HTTP to a loopback address for local development. */
export const notifyUrl = z
  .string()
  .max(2_000, 'must be at most 2,000 characters')
  .superRefine((value, ctx) => {
    const problem = webhookUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** `notify:` the URLs a run POSTs its signed events to (ended, waiting for budget or a person, changes found). */
export const notifySchema = z.array(notifyUrl).min(1, 'needs at least one URL').max(MAX_NOTIFY_URLS, `at most ${MAX_NOTIFY_URLS} URLs`).meta({
  description:
    "URLs the run POSTs signed events to (Standard Webhooks; the secret is the worker's NOTIFY_SECRET): run.completed, run.failed, run.cancelled, run.waiting_for_budget, run.waiting_for_person, run.changes_found",
});

const SQL_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** `outputs: [{ postgres: { url_env, table } }]`: one row per item and step, upserted into a PostgreSQL table. */
export const postgresOutput = z
  .strictObject({
    postgres: z.strictObject({
      url_env: z
        .string()
        .regex(/^[A-Z_][A-Z0-9_]*$/, 'must name an environment variable of the worker (e.g. DATABASE_URL), never the URL itself')
        .meta({ description: "The worker's environment variable holding the connection URL (postgres://...)" }),
      table: z
        .string()
        .refine((name) => name.split('.').length <= 2 && name.split('.').every((part) => SQL_NAME.test(part)), {
          message: 'must be a table name (letters, digits and _; up to 63 characters), optionally schema.table',
        })
        .meta({ description: 'Created if missing; rows keyed by (pipeline, run_key, item_key, step_id)' }),
    }),
  })
  .meta({ description: 'A PostgreSQL sink: the run upserts a row per item and step when it writes its outputs' });

/** One PostgreSQL sink of a definition. */
export type PostgresSink = z.output<typeof postgresOutput>['postgres'];
