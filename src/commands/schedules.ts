import type { Command } from 'commander';
import { loadPipelineDefinition, ParameterError, parseSetArguments, PipelineDefinitionError, type LoadedPipeline } from '../pipelines';
import { managedSchedules, NotScheduledError, scheduleIdOf, scheduleOptionsFor, syncSchedules, type SchedulePlan } from '../runs/schedules';
import { collect, UsageError } from '../shared/usage';
import {
  definitionFailure,
  isMissingFile,
  json,
  openConfiguredTemporal,
  printFailure,
  withTemporal,
  type CommandIo,
  type JsonError,
  type TemporalOpener,
} from './common';

/** The definitions, or (each problem printed, one JSON error with `--json`) exit code 1. */
async function load(files: readonly string[], io: CommandIo, options: { json?: boolean }): Promise<LoadedPipeline[] | number> {
  const loaded: LoadedPipeline[] = [];
  const failures: Array<JsonError['error']> = [];
  for (const file of files) {
    try {
      loaded.push(await loadPipelineDefinition(file));
    } catch (error) {
      if (!(error instanceof PipelineDefinitionError) && !isMissingFile(error)) throw error;
      failures.push(definitionFailure(file, error));
      if (!options.json) io.stderr(`${failures.at(-1)!.message}\n`);
    }
  }
  if (failures.length === 0) return loaded;
  if (!options.json) return 1;
  return printFailure(io, options, {
    kind: 'definition',
    message: failures.map((failure) => failure.message).join('\n'),
    issues: failures.flatMap((failure) => failure.issues ?? [{ message: failure.message }]),
  });
}

/** The plan as lines, one action per schedule. */
export function formatPlan(plan: SchedulePlan, dryRun: boolean): string {
  const verb = (done: string, planned: string): string => (dryRun ? planned : done);
  const lines = [
    ...plan.create.map((id) => `${verb('created', 'would create')} ${id}`),
    ...plan.update.map((id) => `${verb('updated', 'would update')} ${id}`),
    ...plan.delete.map((id) => `${verb('deleted', 'would delete')} ${id}`),
    ...plan.unchanged.map((id) => `unchanged ${id}`),
  ];
  return `${lines.join('\n') || 'no scheduled pipelines and no managed schedules'}\n`;
}

/** `rp schedule sync <files...> [--dry-run]`: makes the server's schedules match the definitions' `schedule:` blocks. */
export async function scheduleSyncCommand(
  files: readonly string[],
  options: { dryRun?: boolean; json?: boolean },
  io: CommandIo,
  open: TemporalOpener = openConfiguredTemporal,
): Promise<number> {
  const loaded = await load(files, io, options);
  if (typeof loaded === 'number') return loaded;
  return withTemporal(open, async (client, taskQueue) => {
    const plan = await syncSchedules(client, loaded, { taskQueue, dryRun: options.dryRun });
    io.stdout(options.json ? json(plan) : formatPlan(plan, options.dryRun === true));
    return 0;
  });
}

/** `rp schedule create <file> [--set k=v]`: creates the schedule of one definition. */
export async function scheduleCreateCommand(
  file: string,
  options: { set?: string[]; json?: boolean },
  io: CommandIo,
  open: TemporalOpener = openConfiguredTemporal,
): Promise<number> {
  const loaded = await load([file], io, options);
  if (typeof loaded === 'number') return loaded;
  let schedule;
  try {
    schedule = scheduleOptionsFor(loaded[0]!, 'pending', parseSetArguments(options.set ?? []));
  } catch (error) {
    if (error instanceof ParameterError || error instanceof NotScheduledError) throw new UsageError(error.message);
    throw error;
  }
  return withTemporal(open, async (client, taskQueue) => {
    await client.schedule.create({ ...schedule, action: { ...schedule.action, taskQueue } });
    io.stdout(options.json ? json({ created: schedule.scheduleId }) : `created ${schedule.scheduleId}\n`);
    return 0;
  });
}

/** `rp schedule list [--json]`. */
export async function scheduleListCommand(options: { json?: boolean }, io: CommandIo, open: TemporalOpener = openConfiguredTemporal): Promise<number> {
  return withTemporal(open, async (client) => {
    const schedules = await managedSchedules(client);
    io.stdout(
      options.json
        ? json(schedules)
        : `${schedules.map((entry) => `${entry.id}${entry.paused ? ' (paused)' : ''}${entry.nextRun ? ` next ${entry.nextRun.toISOString()}` : ''}`).join('\n') || 'no pipeline schedules'}\n`,
    );
    return 0;
  });
}

type ScheduleAction = 'describe' | 'pause' | 'unpause' | 'trigger' | 'delete' | 'backfill';

/** `rp schedule describe|pause|unpause|trigger|backfill|delete <pipeline>`. */
export async function scheduleActionCommand(
  action: ScheduleAction,
  pipeline: string,
  options: { note?: string; from?: string; to?: string; json?: boolean },
  io: CommandIo,
  open: TemporalOpener = openConfiguredTemporal,
): Promise<number> {
  const id = pipeline.startsWith('pipeline-schedule/') ? pipeline : scheduleIdOf(pipeline);
  let range: { start: Date; end: Date } | undefined;
  if (action === 'backfill') {
    const start = new Date(options.from ?? '');
    const end = new Date(options.to ?? '');
    if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime()) || end <= start)
      throw new UsageError('backfill: --from and --to must be ISO times with --to after --from');
    range = { start, end };
  }
  return withTemporal(open, async (client) => {
    const handle = client.schedule.getHandle(id);
    switch (action) {
      case 'describe': {
        const description = await handle.describe();
        const summary = {
          id,
          paused: description.state.paused,
          note: description.state.note,
          spec: description.spec,
          overlap: description.policies.overlap,
          nextRuns: description.info.nextActionTimes.map((time) => time.toISOString()),
          recentRuns: description.info.recentActions.map((run) => ({ scheduledAt: run.scheduledAt.toISOString(), workflowId: run.action.workflow.workflowId })),
          runningWorkflows: description.info.runningActions.map((run) => run.workflow.workflowId),
        };
        io.stdout(
          options.json
            ? json(summary)
            : `${id}${summary.paused ? ' (paused)' : ''}\n  next: ${summary.nextRuns.join(', ') || '-'}\n  recent: ${summary.recentRuns.map((run) => run.workflowId).join(', ') || '-'}\n  running: ${summary.runningWorkflows.join(', ') || '-'}\n`,
        );
        return 0;
      }
      case 'pause':
        await handle.pause(options.note);
        break;
      case 'unpause':
        await handle.unpause(options.note);
        break;
      case 'trigger':
        await handle.trigger();
        break;
      case 'delete':
        await handle.delete();
        break;
      case 'backfill':
        await handle.backfill([{ start: range!.start, end: range!.end, overlap: 'ALLOW_ALL' }]);
        break;
    }
    io.stdout(options.json ? json({ [action]: id }) : `${action}: ${id}\n`);
    return 0;
  });
}

/** Adds `rp schedule create|list|describe|pause|unpause|trigger|backfill|delete|sync`. */
export function addScheduleCommands(program: Command, io: CommandIo, done: (code: number) => void): void {
  const schedule = program.command('schedule').description("pipelines on Temporal Schedules (the definitions' schedule: blocks)");
  schedule
    .command('sync')
    .description('create, update and delete schedules so the server matches the definitions')
    .argument('<file...>', 'every definition (unlisted schedules are deleted)')
    .option('--dry-run', 'print the plan only')
    .option('--json', 'print JSON')
    .action(async (files: string[], options: { dryRun?: boolean; json?: boolean }) => done(await scheduleSyncCommand(files, options, io)));
  schedule
    .command('create')
    .description('create the schedule of one definition')
    .argument('<file>', 'definition file')
    .option('--set <name=value>', 'parameter of the scheduled runs (repeatable; over schedule.set)', collect, [])
    .option('--json', 'print JSON')
    .action(async (file: string, options: { set?: string[]; json?: boolean }) => done(await scheduleCreateCommand(file, options, io)));
  schedule
    .command('list')
    .description('the pipeline schedules')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => done(await scheduleListCommand(options, io)));
  for (const action of ['describe', 'pause', 'unpause', 'trigger', 'delete'] as const) {
    schedule
      .command(action)
      .description(`${action} a pipeline's schedule`)
      .argument('<pipeline>', 'pipeline name (or schedule id)')
      .option('--note <text>', 'pause/unpause: why')
      .option('--json', 'print JSON')
      .action(async (pipeline: string, options: { note?: string; json?: boolean }) => done(await scheduleActionCommand(action, pipeline, options, io)));
  }
  schedule
    .command('backfill')
    .description('run the schedule for the times it would have fired in a range')
    .argument('<pipeline>', 'pipeline name')
    .requiredOption('--from <iso>', 'start of the range')
    .requiredOption('--to <iso>', 'end of the range')
    .option('--json', 'print JSON')
    .action(async (pipeline: string, options: { from?: string; to?: string; json?: boolean }) =>
      done(await scheduleActionCommand('backfill', pipeline, options, io)),
    );
}
