/**
 * The payloads of the signals and updates the workflows take, as zod schemas. The workflows check what
 * they receive with them (zod runs in Temporal's workflow sandbox), the intake declares its bodies with
 * them and the CLI checks its arguments with them, so all three refuse the same input in the same words.
 *
 * This module is workflow code: it may import zod and other sandbox-safe modules only (no Node
 * built-ins, no I/O), and never the clock or randomness. Every workflow evaluates its own copy of it (on
 * its first message: src/workflows/message-schemas.ts) and keeps it while cached, so schemas stay few
 * and carry `.describe()` only where a route publishes them.
 */
import { z } from 'zod';
import { checkpointResponseSchemas, type CheckpointType } from '../api/schemas/checkpoints';
import { definitionErrorMap } from '../pipelines/issue-messages';

/** A value as a reason quotes it: JSON, cut at 80 characters; `nothing` for a missing payload. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** An object schema's own error: its unknown fields with those it takes, or `rule` for anything else (not an object). */
const objectRule =
  (allowed: readonly string[], rule: (input: unknown) => string) =>
  (issue: z.core.$ZodRawIssue): string =>
    issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.map((key) => `"${key}"`).join(', ')} (allowed: ${allowed.join(', ')})` : rule(issue.input);

/** How `checkMessage` names the fields of a problem. */
export interface ProblemNaming {
  /** Where the value sits, put before each issue's path (`['response']`). */
  at?: readonly PropertyKey[];
  /** Names for top-level fields, as the caller knows them (`{addUsd: '--add'}` for the CLI). */
  names?: Readonly<Record<string, string>>;
}

function pathText(path: readonly PropertyKey[], names: ProblemNaming['names']): string {
  const [first, ...rest] = path;
  const name = typeof first === 'string' ? names?.[first] : undefined;
  if (name === undefined) return z.core.toDotPath(path);
  const tail = z.core.toDotPath(rest);
  return tail === '' || tail.startsWith('[') ? `${name}${tail}` : `${name}.${tail}`;
}

/**
 * The parsed message, or why `value` is not one: each problem as `path: rule` (the rule alone when it is
 * about the whole payload), joined with `; `. Rules a schema does not word itself are said plainly.
 */
export function checkMessage<S extends z.ZodType>(schema: S, value: unknown, naming: ProblemNaming = {}): { value: z.output<S> } | { problem: string } {
  const result = schema.safeParse(value, { error: definitionErrorMap });
  if (result.success) return { value: result.data };
  const problems = result.error.issues.map((issue) => {
    const path = pathText([...(naming.at ?? []), ...issue.path], naming.names);
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  return { problem: problems.join('; ') };
}

// --- research task workflow ------------------------------------------------------------------------

const hint = (issue: { input?: unknown }) => `must be a non-empty string when given, got ${describeValue(issue.input)}`;
const hintText = z.string({ error: hint }).min(1, { error: hint });

/** `webhookReceived`: what a verified service webhook says, a hint to fetch the status now. Unknown fields are dropped. */
export const webhookNotice = z.object(
  {
    deepresearchId: hintText.optional(),
    batchId: hintText.optional(),
    status: hintText.optional(),
  },
  { error: (issue) => `webhookReceived needs an object like {deepresearchId, status}, got ${describeValue(issue.input)}` },
);
/** What a webhook (verified by the intake) tells the workflow. */
export type WebhookNotice = z.infer<typeof webhookNotice>;

/** The one rule of a create decision, as operators read it. */
export const CREATE_DECISION_RULE = 'resolveCreate needs {"adoptTaskId": "<task id>"} or {"createAgain": true}';

/** `resolveCreate` and `resolveCreateOutcome`: exactly `{adoptTaskId}` (trimmed, not empty) or `{createAgain: true}`. */
export const createDecision = z.union([z.strictObject({ adoptTaskId: z.string().trim().min(1) }), z.strictObject({ createAgain: z.literal(true) })], {
  error: (issue) => `${CREATE_DECISION_RULE}, got ${describeValue(issue.input)}`,
});
/** An operator's decision after a create whose outcome is unknown. */
export type CreateDecision = z.infer<typeof createDecision>;

/**
 * `checkpointResponse` and `respondToCheckpoint`: an answer's envelope. The response's shape depends on
 * the checkpoint's type (`checkpointResponseFor`); fields beside the two are ignored.
 */
export const checkpointAnswer = z.object(
  {
    interactionId: z
      .string({ error: "must be the checkpoint's interaction id (text)" })
      .min(1, 'must not be empty')
      .describe("the checkpoint's interaction id (see the task's state)"),
    response: z
      .record(z.string(), z.unknown(), { error: (issue) => `must be an object, e.g. {"approved": true}, got ${describeValue(issue.input)}` })
      .describe('the answer, e.g. {"approved": true}'),
  },
  { error: objectRule(['interactionId', 'response'], (input) => `an answer needs {interactionId, response}, got ${describeValue(input)}`) },
);

/** What each checkpoint type takes as its response, for reasons to quote. */
export const CHECKPOINT_RESPONSE_SHAPES: Readonly<Record<CheckpointType, string>> = {
  planning_questions: '{answers: [{question, answer}, …]}',
  plan_review: '{approved: true} or {approved: false, modifications}',
  source_review: '{included_domains: [...], excluded_domains: [...]}',
  outline_review: '{approved: true} or {approved: false, modifications}',
};

/** The response a checkpoint of `type` takes (the service's own schema for it). */
export function checkpointResponseFor(type: CheckpointType): z.ZodType {
  return checkpointResponseSchemas[type];
}

const instructionRule = 'an instruction must be non-empty text';
/** `addInstruction`: a follow-up instruction for the research agent. */
export const followUpInstruction = z.string({ error: instructionRule }).refine((text) => text.trim() !== '', { error: instructionRule });

/** `pipelineItemAdopted`: the run an adopted item reports its outcome to. */
export const itemAdoptedNotice = z.object({ run: z.string().min(1) });
/** The payload of `pipelineItemAdopted`. */
export type ItemAdoptedNotice = z.infer<typeof itemAdoptedNotice>;

// --- pipeline run workflow -------------------------------------------------------------------------

const noteRule = 'payload must be nothing or {reason: "text"}';
const noteObject = z.strictObject({ reason: z.string({ error: 'must be text' }).optional() }, { error: objectRule(['reason'], () => noteRule) });
/** `pausePipeline` and `resumePipeline`: nothing, or `{reason}` text. */
export const pipelineControlNote = noteObject.nullish();
/** The payload of `pausePipeline` and `resumePipeline`. */
export type PipelineControlNote = z.infer<typeof noteObject>;

const usdRule = 'must be a number more than 0';
const positiveUsd = z.number({ error: usdRule }).positive({ error: usdRule });
/** `raiseBudget`: exactly one of a new total or an amount to add, a positive number. The ledger's own rule (above the budget now) is the workflow's. */
export const budgetRaise = z
  .strictObject(
    {
      budgetUsd: positiveUsd.optional(),
      addUsd: positiveUsd.optional(),
    },
    { error: objectRule(['budgetUsd', 'addUsd'], () => 'give {budgetUsd: <new total>} or {addUsd: <amount>}') },
  )
  .refine((raise) => (raise.budgetUsd === undefined) !== (raise.addUsd === undefined), {
    error: 'give exactly one of budgetUsd (the new total) or addUsd (an amount to add)',
  })
  .transform((raise): BudgetRaise => (raise.budgetUsd !== undefined ? { budgetUsd: raise.budgetUsd } : { addUsd: raise.addUsd! }));
/** A checked budget raise. */
export type BudgetRaise = { budgetUsd: number } | { addUsd: number };

const itemKey = z.string({ error: 'must be the item key' }).min(1, { error: 'must be the item key' });

/** `pipelineItemWaiting`: an item's research task starts or stops waiting for a person. Unknown fields are dropped. */
export const itemWaitingNotice = z.object(
  {
    item: itemKey,
    // checkpoint: a checkpoint waits for an answer; operator: a 402, 401 or 403 waits for resume; null: no longer waiting.
    waiting: z.enum(['checkpoint', 'operator'], { error: 'must be "checkpoint", "operator" or null' }).nullable(),
  },
  { error: 'payload must be {item, waiting}' },
);
/** What an item's research task tells its run when it starts or stops waiting for a person. */
export type ItemWaitingNotice = z.infer<typeof itemWaitingNotice>;

const settledCommon = {
  item: itemKey,
  workflowId: z.string({ error: "must be the item's workflow id" }).min(1, { error: "must be the item's workflow id" }),
};
/** `pipelineItemSettled`: how an adopted item ended; a completed one carries its result. Other fields pass unchecked. */
export const itemSettledReport = z.discriminatedUnion(
  'status',
  [
    z.object({ ...settledCommon, status: z.literal('completed'), result: z.record(z.string(), z.unknown(), { error: 'a completed item reports its result' }) }),
    z.object({ ...settledCommon, status: z.enum(['cancelled', 'failed']) }),
  ],
  { error: (issue) => (issue.code === 'invalid_union' ? 'must be "completed", "cancelled" or "failed"' : 'payload must be {item, workflowId, status}') },
);
