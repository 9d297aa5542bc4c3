import { createHash } from 'node:crypto';
import type { Client, ScheduleOptions, ScheduleOverlapPolicy } from '@temporalio/client';
import { itemSource } from '../pipelines/input-source';
import type { LoadedPipeline } from '../pipelines/load';
import type { ParameterValue } from '../pipelines/parameter-schema';
import { resolveParameters } from '../pipelines/parameters';
import type { pipelineRunWorkflow } from '../workflows/pipeline-run';
import { scheduledRunWorkflowId } from '../domain/ids';
import type { PipelineRunInput } from '../domain/pipeline-types';
import { ResearchPipelineKey } from '../workflows/search-attributes';

/** Schedules this project manages have ids with this prefix; `sync` never touches others. */
export const SCHEDULE_ID_PREFIX = 'pipeline-schedule/';
/**
 * A schedule's note starts with `rp:<digest>` of what it was made from, so `sync` sees changes (a
 * schedule's memo cannot be updated; its note can).
 */
const NOTE_DIGEST = /^rp:([0-9a-f]{16})\b/;

/** The digest a schedule's note carries, if any. */
export function digestOfNote(note: string | undefined): string | undefined {
  return note ? NOTE_DIGEST.exec(note)?.[1] : undefined;
}

/** The schedule id of a pipeline. */
export const scheduleIdOf = (pipeline: string): string => `${SCHEDULE_ID_PREFIX}${pipeline}`;

/**
 * The definition's overlap policy on the server. `terminate_other` becomes CANCEL_OTHER: a terminated run
 * runs no code, so it would write no records or outputs and leave its tasks open at the service; a
 * cancelled one cancels its items, writes what it has, and the next run starts once it has closed.
 */
const OVERLAP: Record<string, ScheduleOverlapPolicy> = {
  skip: 'SKIP',
  buffer_one: 'BUFFER_ONE',
  buffer_all: 'BUFFER_ALL',
  cancel_other: 'CANCEL_OTHER',
  terminate_other: 'CANCEL_OTHER',
  allow_all: 'ALLOW_ALL',
};

/** A definition without a `schedule:` block cannot be scheduled. */
export class NotScheduledError extends Error {
  constructor(file: string) {
    super(`${file}: has no schedule block (schedule: { cron, timezone, overlap, set })`);
    this.name = 'NotScheduledError';
  }
}

/**
 * The Temporal Schedule of a definition: its cron in its time zone, its overlap policy, and a start of
 * `pipelineRunWorkflow` whose id the server makes unique per fire (the run key is the rest of it).
 * Scheduled runs compare their results with the previous run (the change report).
 */
export function scheduleOptionsFor(loaded: LoadedPipeline, taskQueue: string, overrides: Readonly<Record<string, ParameterValue>> = {}): ScheduleOptions {
  const { definition } = loaded;
  const schedule = definition.schedule;
  if (!schedule) throw new NotScheduledError(loaded.file);
  const input: PipelineRunInput = {
    definition,
    source: itemSource(loaded),
    params: resolveParameters(definition.parameters, { ...schedule.set, ...overrides }, { textValues: true }),
    compareWithPrevious: true,
  };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'pipelineRunWorkflow',
    workflowId: scheduledRunWorkflowId(definition.name),
    taskQueue,
    args: [input] as Parameters<typeof pipelineRunWorkflow>,
    typedSearchAttributes: [{ key: ResearchPipelineKey, value: definition.name }],
    staticSummary: `Scheduled run of pipeline ${definition.name}`,
  };
  const spec = { cronExpressions: [schedule.cron.trim()], timezone: schedule.timezone };
  const policies = { overlap: OVERLAP[schedule.overlap] ?? 'SKIP', catchupWindow: '1 day' as const };
  const hash = createHash('sha256').update(JSON.stringify({ action, spec, policies })).digest('hex').slice(0, 16);
  return { scheduleId: scheduleIdOf(definition.name), spec, action, policies, state: { note: `rp:${hash} from ${loaded.file}` } };
}

/** What `sync` would do to make the server's schedules match the definitions. */
export interface SchedulePlan {
  create: string[];
  update: string[];
  delete: string[];
  unchanged: string[];
}

/** The plan, from the wanted schedules and the managed ones that exist (pure). */
export function planScheduleSync(wanted: ReadonlyArray<{ id: string; hash: string }>, existing: ReadonlyArray<{ id: string; hash?: string }>): SchedulePlan {
  const plan: SchedulePlan = { create: [], update: [], delete: [], unchanged: [] };
  const have = new Map(existing.filter((entry) => entry.id.startsWith(SCHEDULE_ID_PREFIX)).map((entry) => [entry.id, entry.hash]));
  for (const { id, hash } of wanted) {
    if (!have.has(id)) plan.create.push(id);
    else if (have.get(id) !== hash) plan.update.push(id);
    else plan.unchanged.push(id);
  }
  const wantedIds = new Set(wanted.map((entry) => entry.id));
  for (const id of have.keys()) if (!wantedIds.has(id)) plan.delete.push(id);
  for (const list of [plan.create, plan.update, plan.delete, plan.unchanged]) list.sort();
  return plan;
}

/**
 * Whether `error` is the SDK's `ScheduleNotFoundError`. The class is read only here, from the module the
 * caller's `Client` has loaded already, so importing this file (and `research-pipelines/client`) does not
 * load `@temporalio/client` and its gRPC stack.
 */
export async function isScheduleNotFound(error: unknown): Promise<boolean> {
  const { ScheduleNotFoundError } = await import('@temporalio/client');
  return error instanceof ScheduleNotFoundError;
}

/** The managed schedules on the server, with the digest each was made from. */
export async function managedSchedules(client: Client): Promise<Array<{ id: string; hash?: string; paused: boolean; nextRun?: Date; note?: string }>> {
  const found = [];
  for await (const summary of client.schedule.list()) {
    if (!summary.scheduleId.startsWith(SCHEDULE_ID_PREFIX)) continue;
    // The list is eventually consistent; each schedule's own description is not.
    const description = await client.schedule
      .getHandle(summary.scheduleId)
      .describe()
      .catch(async (error: unknown) => {
        if (await isScheduleNotFound(error)) return undefined;
        throw error;
      });
    if (!description) continue;
    const hash = digestOfNote(description.state.note);
    const nextRun = description.info.nextActionTimes[0];
    found.push({
      id: summary.scheduleId,
      ...(hash ? { hash } : {}),
      paused: description.state.paused,
      ...(nextRun ? { nextRun } : {}),
      ...(description.state.note ? { note: description.state.note } : {}),
    });
  }
  return found.sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * Makes the server's managed schedules match the `schedule:` blocks of `definitions`: creates missing
 * ones, updates changed ones, deletes those whose definition is gone or unscheduled. With `dryRun`,
 * only returns the plan. Visibility lists may lag a create by a moment; the plan reads them as they are.
 */
export async function syncSchedules(
  client: Client,
  definitions: readonly LoadedPipeline[],
  options: { taskQueue: string; dryRun?: boolean },
): Promise<SchedulePlan> {
  const wanted = definitions.filter((loaded) => loaded.definition.schedule).map((loaded) => scheduleOptionsFor(loaded, options.taskQueue));
  const plan = planScheduleSync(
    wanted.map((schedule) => ({ id: schedule.scheduleId, hash: digestOfNote(schedule.state?.note) ?? '' })),
    await managedSchedules(client),
  );
  if (options.dryRun) return plan;
  for (const schedule of wanted) {
    if (plan.create.includes(schedule.scheduleId)) await client.schedule.create(schedule);
    if (plan.update.includes(schedule.scheduleId)) await updateSchedule(client, schedule);
  }
  for (const id of plan.delete) {
    await client.schedule
      .getHandle(id)
      .delete()
      .catch(async (error: unknown) => {
        if (!(await isScheduleNotFound(error))) throw error;
      });
  }
  return plan;
}

/** Replaces a schedule's spec, action, policies and note, keeping whether it is paused. */
export async function updateSchedule(client: Client, schedule: ScheduleOptions): Promise<void> {
  await client.schedule.getHandle(schedule.scheduleId).update((previous) => ({
    ...previous,
    spec: schedule.spec,
    action: schedule.action,
    policies: { ...previous.policies, ...schedule.policies },
    state: { ...previous.state, note: schedule.state?.note },
  }));
}
