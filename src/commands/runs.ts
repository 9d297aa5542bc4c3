import { CancelledFailure, WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { Command } from 'commander';
import type { z } from 'zod';
import { budgetRaise, checkMessage, checkpointAnswer, pipelineControlNote } from '../domain/messages';
import { ITEM_KEY_PATTERN, ParameterError, resolveParameters } from '../pipelines';
import { answerItemCheckpoint, cancelRun, currentItemWorkflowId, itemTaskWorkflowId, runProgress } from '../runs/control';
import { ItemStepTaskError, itemSteps } from '../runs/item-steps';
import { RunKeyConflictError, RunKeyError, startPipeline } from '../runs/start';
import {
  pausePipelineSignal,
  pipelineRunStateQuery,
  raiseBudgetUpdate,
  researchTaskStateQuery,
  resumePipelineSignal,
  resumeSignal,
} from '../workflows/definitions';
import { pipelineRunWorkflowId } from '../domain/ids';
import type { PipelineRunResult, PipelineRunState } from '../domain/pipeline-types';
import { collect, UsageError } from '../shared/usage';
import {
  json,
  openConfiguredTemporal,
  openRunArguments,
  printFailure,
  printResult,
  withTemporal,
  workflowUiLink,
  type CommandIo,
  type TemporalOpener,
} from './common';
import { checkpointLines, itemStepsText } from './item-steps';
import { runPipeline } from './pipelines';
import type { CheckpointAnswer, ResearchTaskState } from '../workflows/types';
import { closedCheckpointRemedy } from '../workflows/operator-remedy';
import { durationText, peopleWaitText } from '../workflows/pipeline-progress';
import { progressView } from './progress';

/** `pipeline/run-key` or a full `pipeline-run/pipeline/run-key` id, as pipeline, run key and workflow id. */
export function parseRunRef(ref: string): { pipeline: string; runKey: string; workflowId: string } {
  const bare = ref.replace(/^pipeline-run\//, '');
  const slash = bare.indexOf('/');
  if (slash <= 0 || slash === bare.length - 1)
    throw new UsageError(`<run>: "${ref}" must be <pipeline>/<run key> (or the run's workflow id, pipeline-run/<pipeline>/<run key>)`);
  const pipeline = bare.slice(0, slash);
  const runKey = bare.slice(slash + 1);
  return { pipeline, runKey, workflowId: pipelineRunWorkflowId(pipeline, runKey) };
}

/** Where a run's outputs are, as the command's last lines. */
function outputsText(result: PipelineRunResult): string {
  return (
    [
      `run ${result.pipeline}/${result.runKey} ${result.status}: ${result.counts.completed} completed, ${result.counts.failed} failed, spent ${result.ledger.spentUsd.toFixed(2)} of ${result.ledger.budgetUsd.toFixed(2)} USD`,
      `outputs: ${result.outputs.folderUri}`,
      ...result.outputs.files.map((file) => `  ${file.uri}`),
      ...(result.outputs.warnings ?? []).map((warning) => `warning: ${warning}`),
    ].join('\n') + '\n'
  );
}

/** What `rp run --wait` prints for a run that was cancelled (it ends Canceled; its state query keeps the outcome). */
export function cancelledText(state: PipelineRunState): string {
  return (
    [
      `run ${state.pipeline}/${state.runKey} cancelled: ${state.counts.completed} completed, ${state.counts.cancelled} cancelled, ${state.counts.failed} failed, spent ${state.ledger.spentUsd.toFixed(2)} of ${state.ledger.budgetUsd.toFixed(2)} USD`,
      ...(state.outputs ? [`outputs: ${state.outputs.folderUri}`, ...state.outputs.files.map((file) => `  ${file.uri}`)] : []),
    ].join('\n') + '\n'
  );
}

/** Polls a run's progress until it closes; returns its result. */
async function watch(handle: WorkflowHandle, stream: { isTTY?: boolean; write(text: string): unknown }, intervalMs: number): Promise<PipelineRunResult> {
  const view = progressView(stream);
  let done = false;
  const result = handle.result().finally(() => {
    done = true;
  }) as Promise<PipelineRunResult>;
  let toldWaiting: string | undefined;
  try {
    while (!done) {
      const state = await handle.query(pipelineRunStateQuery).catch(() => undefined);
      if (state) view.update(state);
      // A run that waits for people (a budget raise, a 402 top-up, a pause) says so once, with what to do:
      // a bar standing still is not enough to tell a stalled run from a slow one.
      const waiting =
        state && (state.phase === 'waiting_for_budget' || state.phase === 'credits_exhausted' || state.phase === 'paused') ? state.phase : undefined;
      if (state && waiting && waiting !== toldWaiting) view.note(waitingNotice(state));
      toldWaiting = waiting;
      await Promise.race([result.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, intervalMs))]);
    }
  } finally {
    view.stop();
  }
  return result;
}

/** What `rp run --wait` prints when a run starts waiting for people. */
export function waitingNotice(state: PipelineRunState): string {
  const run = `${state.pipeline}/${state.runKey}`;
  const todo = state.phase === 'waiting_for_budget' ? `rp budget ${run} --add <usd>` : `rp resume ${run}`;
  return `${run} waits: ${state.detail ?? state.phase}. Go on with \`${todo}\` (this command keeps waiting; Ctrl-C leaves the run waiting)`;
}

/** Options of `rp run` without `--dry-run`. */
export interface RunOptions {
  set?: string[];
  runKey?: string;
  wait?: boolean;
  resume?: boolean;
  compare?: boolean;
  json?: boolean;
}

/** `rp run <file>`: starts a run (or finds the one its run key has); with `--wait`, shows progress and ends with where the outputs are. */
export async function startRunCommand(
  file: string,
  options: RunOptions,
  io: CommandIo,
  open: TemporalOpener = openConfiguredTemporal,
  progress: { stream?: { isTTY?: boolean; write(text: string): unknown }; intervalMs?: number } = {},
): Promise<number> {
  const opened = await openRunArguments(file, options.set, io, options);
  if (typeof opened === 'number') return opened;
  const { loaded, overrides } = opened;
  const runKey = options.runKey ?? `manual-${new Date().toISOString().slice(0, 19).replace(/[-:]/g, '')}`;
  // Bad usage is refused before anything is contacted.
  if (!ITEM_KEY_PATTERN.test(runKey)) throw new UsageError(`--run-key: ${new RunKeyError(runKey).message}`);
  try {
    resolveParameters(loaded.definition.parameters, overrides, { textValues: true });
  } catch (error) {
    if (error instanceof ParameterError) throw new UsageError(error.message);
    throw error;
  }
  const temporal = await open();
  try {
    let started;
    try {
      started = await startPipeline(temporal.client, loaded, overrides, {
        runKey,
        taskQueue: temporal.taskQueue,
        resume: options.resume,
        compareWithPrevious: options.compare,
        textValues: true,
      });
    } catch (error) {
      if (error instanceof ParameterError || error instanceof RunKeyError || error instanceof RunKeyConflictError) throw new UsageError(error.message);
      throw error;
    }
    const uiLink = temporal.uiUrl ? workflowUiLink(temporal.uiUrl, temporal.client.options.namespace, started.workflowId) : undefined;
    const line = `${started.started ? 'started' : 'already exists (not started again)'}: ${started.workflowId}${uiLink ? `\nsee it in the Temporal UI: ${uiLink}` : ''}`;
    if (!options.wait) {
      io.stdout(options.json ? json({ workflowId: started.workflowId, runKey, started: started.started, ...(uiLink ? { uiUrl: uiLink } : {}) }) : `${line}\n`);
      return 0;
    }
    io.stderr(`${line}\n`);
    try {
      const result = await watch(started.handle, progress.stream ?? process.stderr, progress.intervalMs ?? 1000);
      io.stdout(options.json ? json(result) : outputsText(result));
      return 0;
    } catch (error) {
      if (!(error instanceof WorkflowFailedError)) throw error;
      // A cancelled run ends Canceled after writing its outputs; its state query says what it did.
      if (error.cause instanceof CancelledFailure) {
        const state = await started.handle.query(pipelineRunStateQuery);
        io.stdout(options.json ? json(state) : cancelledText(state));
        return 0;
      }
      return printFailure(io, options, { kind: 'failed', message: `run ${started.workflowId} failed: ${error.cause?.message ?? error.message}` });
    }
  } finally {
    await temporal.close();
  }
}

/** Options of the commands that act on a run or one of its items. */
export interface RunRefOptions {
  item?: string;
  /** A `steps:` item's step whose research task to act on (default: the one running now). */
  step?: string;
  json?: boolean;
}

/** `--step` names a step of an item: it needs `--item`. */
function checkStepOption(command: string, options: RunRefOptions): void {
  if (options.step !== undefined && !options.item) throw new UsageError(`${command}: --step <id> needs --item <key> (the item whose step it is)`);
}

/** An item with no task to act on (a `steps:` item at a call step, say): the command's failure, with where the item is. */
function noTaskFailure(command: string, io: CommandIo, options: RunRefOptions, error: ItemStepTaskError): number {
  return printFailure(io, options, { kind: 'refused', message: `${command}: ${error.message}` });
}

function itemId(client: Client, ref: string, item: string): Promise<string> {
  const run = parseRunRef(ref);
  return currentItemWorkflowId(client, run.pipeline, run.runKey, item);
}

/** `rp status <run>`: phase, counts, money, who waits for whom and for how long, the rate and time left. */
export function runStatusText(state: PipelineRunState): string {
  const lines = [
    `${state.pipeline}/${state.runKey}: ${state.phase}${state.detail ? ` (${state.detail})` : ''}`,
    `  items: ${state.total ?? `${state.counts.read}+`} · completed ${state.counts.completed} · failed ${state.counts.failed} · running ${state.counts.running} · reused ${state.counts.reused} · cancelled ${state.counts.cancelled} · not started ${state.counts.skipped}`,
    `  money: spent ${state.ledger.spentUsd.toFixed(2)} + reserved ${state.ledger.reservedUsd.toFixed(2)} of ${state.ledger.budgetUsd.toFixed(2)} USD`,
  ];
  const people = state.waiting.checkpoint.length + state.waiting.operator.length;
  // A run blocked on people says so first: a bar standing still is not a stalled worker.
  if (state.waiting.checkpoint.length > 0)
    lines.push(`  ${peopleWaitText('checkpoint', state.waiting.checkpoint.length, state.waitingLongestMs?.checkpoint)}: answer with rp respond`);
  if (state.waiting.operator.length > 0)
    lines.push(`  ${peopleWaitText('operator', state.waiting.operator.length, state.waitingLongestMs?.operator)}: fix it, then rp resume`);
  if (state.itemsPerMinute !== undefined)
    lines.push(
      `  rate: ${state.itemsPerMinute} items/min${state.etaMs !== undefined && state.etaMs > 0 ? `, about ${durationText(state.etaMs)} left${people > 0 ? ` not counting ${people} item(s) waiting for a person` : ''}` : ''}`,
    );
  if (people > 0)
    lines.push(
      `  waiting for a person: ${[...state.waiting.checkpoint.map((key) => `${key} (checkpoint)`), ...state.waiting.operator.map((key) => `${key} (operator)`)].join(', ')}`,
    );
  if (state.running.length) lines.push(`  in flight: ${state.running.join(', ')}`);
  for (const failure of state.failures) lines.push(`  failed ${failure.key} (${failure.attempts} attempts): ${failure.error}`);
  if (state.outputs) lines.push(`  outputs: ${state.outputs.folderUri}`);
  for (const message of state.rejectedMessages) lines.push(`  note: ${message}`);
  return `${lines.join('\n')}\n`;
}

/** `rp status <run> --item key`: the item's task, the checkpoint it waits at with its questions, and what to run to answer. */
export function itemStatusText(ref: string, item: string, state: ResearchTaskState): string {
  const lines = [`${item}: ${state.status} (${state.waitingFor})${state.detail ? ` — ${state.detail}` : ''}`];
  const { interaction } = state;
  if (interaction && state.status === 'cancel_refused') lines.push(`  ${closedCheckpointRemedy(interaction.type, interaction.interaction_id)}`);
  else if (interaction) lines.push(...checkpointLines(`rp respond ${ref} --item ${item}`, interaction, '  '));
  if (state.waitingForInputMs) lines.push(`  waited for a person: ${durationText(state.waitingForInputMs)}`);
  if (state.cost !== undefined) lines.push(`  cost: ${state.cost.toFixed(2)} USD`);
  return `${lines.join('\n')}\n`;
}

/**
 * `rp status <run> [--item key] [--json]`: a run's progress (with items waiting at checkpoints), or one
 * item's task state (for a `steps:` item, each step with its research task).
 */
export async function statusCommand(ref: string, options: RunRefOptions, io: CommandIo, open: TemporalOpener = openConfiguredTemporal): Promise<number> {
  return withTemporal(open, async (client) => {
    if (options.item) {
      const run = parseRunRef(ref);
      const steps = await client.workflow
        .getHandle(pipelineRunWorkflowId(run.pipeline, run.runKey))
        .query(pipelineRunStateQuery)
        .then((state) => state.steps)
        // The run cannot be asked (gone from the server): the item's own task may still be.
        .catch(() => undefined);
      if (steps) {
        const views = await itemSteps(client, run.pipeline, run.runKey, options.item, steps);
        io.stdout(options.json ? json({ item: options.item, steps: views }) : itemStepsText(ref, options.item, views));
        return 0;
      }
      const state = await client.workflow.getHandle(await itemId(client, ref, options.item)).query(researchTaskStateQuery);
      io.stdout(options.json ? json(state) : itemStatusText(ref, options.item, state));
      return 0;
    }
    const run = parseRunRef(ref);
    const state = await runProgress(client, run.pipeline, run.runKey);
    const waiting = state.waitingOnCheckpoint;
    io.stdout(
      options.json
        ? json(state)
        : `${runStatusText(state)}${waiting === undefined ? '' : `  waiting on a checkpoint: ${waiting.length}${waiting.length ? ` (${waiting.join(', ')}; answer with rp respond)` : ''}\n`}`,
    );
    return 0;
  });
}

/**
 * `rp cancel <run> [--item key [--step id]]`: cancels the run (children stop, what finished is kept and
 * written out) or one item's task (a `steps:` item's: the step task running now, or `--step`'s).
 */
export async function cancelCommand(ref: string, options: RunRefOptions, io: CommandIo, open: TemporalOpener = openConfiguredTemporal): Promise<number> {
  checkStepOption('cancel', options);
  return withTemporal(open, async (client) => {
    const run = parseRunRef(ref);
    try {
      const id = await cancelRun(client, run.pipeline, run.runKey, options.item, options.step);
      io.stdout(options.json ? json({ cancelled: id }) : `cancel requested: ${id}\n`);
      return 0;
    } catch (error) {
      if (error instanceof ItemStepTaskError) return noTaskFailure('cancel', io, options, error);
      throw error;
    }
  });
}

/**
 * `rp pause <run>` and `rp resume <run> [--item key [--step id]]`: stop or restart item starts (resume
 * also answers a 402 wait); with `--item`, resumes that item's task (a `steps:` item's running step task).
 */
export async function pauseResumeCommand(
  action: 'pause' | 'resume',
  ref: string,
  options: RunRefOptions & { reason?: string },
  io: CommandIo,
  open: TemporalOpener = openConfiguredTemporal,
): Promise<number> {
  checkStepOption(action, options);
  const payload = options.reason ? (checkArguments(action, pipelineControlNote, { reason: options.reason }, { reason: '--reason' }) ?? undefined) : undefined;
  return withTemporal(open, async (client) => {
    if (options.item) {
      if (action === 'pause') throw new UsageError('pause: --item is not supported (a research task cannot be paused; cancel it, or pause the run)');
      const run = parseRunRef(ref);
      let workflowId: string;
      try {
        workflowId = await itemTaskWorkflowId(client, run.pipeline, run.runKey, options.item, 'resume', options.step);
      } catch (error) {
        if (error instanceof ItemStepTaskError) return noTaskFailure(action, io, options, error);
        throw error;
      }
      await client.workflow.getHandle(workflowId).signal(resumeSignal);
      printResult(io, options, { [action]: true, workflowId }, `${action} sent\n`);
    } else {
      const { workflowId } = parseRunRef(ref);
      await client.workflow.getHandle(workflowId).signal(action === 'pause' ? pausePipelineSignal : resumePipelineSignal, payload);
      printResult(io, options, { [action]: true, workflowId }, `${action} sent\n`);
    }
    return 0;
  });
}

/**
 * `rp respond <run> --item key [--step id] --interaction id --response json`: answers an item's checkpoint
 * (checked by the workflow first); a `steps:` item's is its running step task's (or `--step`'s).
 */
export async function respondCommand(
  ref: string,
  options: RunRefOptions & { interaction?: string; response?: string },
  io: CommandIo,
  open: TemporalOpener = openConfiguredTemporal,
): Promise<number> {
  if (!options.item) throw new UsageError('respond: --item <key> is required (the item whose checkpoint to answer)');
  if (!options.interaction) throw new UsageError('respond: --interaction <id> is required (rp status <run> --item <key> shows it)');
  let response: unknown;
  try {
    response = JSON.parse(options.response ?? '');
  } catch {
    throw new UsageError('respond: --response must be JSON, e.g. \'{"approved": true}\'');
  }
  // The envelope is checked here; the response's shape for the checkpoint's type, by the workflow's update validator.
  const checked = checkArguments(
    'respond',
    checkpointAnswer,
    { interactionId: options.interaction, response },
    { interactionId: '--interaction', response: '--response' },
  );
  return withTemporal(open, async (client) => {
    try {
      const run = parseRunRef(ref);
      const answer = await answerItemCheckpoint(client, run.pipeline, run.runKey, options.item!, checked as CheckpointAnswer, options.step);
      io.stdout(options.json ? json(answer) : `answer accepted for interaction ${answer.interactionId}\n`);
      return 0;
    } catch (error) {
      if (error instanceof ItemStepTaskError) return noTaskFailure('respond', io, options, error);
      return printFailure(io, options, {
        kind: 'refused',
        message: `respond: refused: ${(error as { cause?: Error }).cause?.message ?? (error as Error).message}`,
      });
    }
  });
}

/** `rp budget <run> --add usd | --set usd`: raises a run's budget (never lowers it). */
export async function budgetCommand(
  ref: string,
  options: { add?: string; set?: string; json?: boolean },
  io: CommandIo,
  open: TemporalOpener = openConfiguredTemporal,
): Promise<number> {
  if ((options.add === undefined) === (options.set === undefined)) throw new UsageError('budget: give one of --add <usd> or --set <usd>');
  const value = Number(options.add ?? options.set);
  // A positive number, checked as the workflow's update validator will; the budget now is the workflow's to compare.
  const raise = checkArguments('budget', budgetRaise, options.add !== undefined ? { addUsd: value } : { budgetUsd: value }, {
    addUsd: '--add',
    budgetUsd: '--set',
  });
  return withTemporal(open, async (client) => {
    try {
      const ledger = await client.workflow.getHandle(parseRunRef(ref).workflowId).executeUpdate(raiseBudgetUpdate, { args: [raise] });
      io.stdout(options.json ? json(ledger) : `budget now ${ledger.budgetUsd} USD (spent ${ledger.spentUsd}, reserved ${ledger.reservedUsd})\n`);
      return 0;
    } catch (error) {
      return printFailure(io, options, {
        kind: 'refused',
        message: `budget: refused: ${(error as { cause?: Error }).cause?.message ?? (error as Error).message}`,
      });
    }
  });
}

/** A message checked with its schema before anything is sent; a bad one is a usage error naming the option. */
function checkArguments<S extends z.ZodType>(command: string, schema: S, value: unknown, options: Readonly<Record<string, string>>): z.output<S> {
  const checked = checkMessage(schema, value, { names: options });
  if ('problem' in checked) throw new UsageError(`${command}: ${checked.problem}`);
  return checked.value;
}

/** Adds `rp run|status|cancel|pause|resume|respond|budget`; `done` receives each command's exit code. */
export function addRunCommands(program: Command, io: CommandIo, done: (code: number) => void): void {
  program
    .command('run')
    .description('start a pipeline run on the worker (--wait shows progress); --dry-run checks every item and estimates the cost')
    .argument('<file>', 'definition file (YAML)')
    .option('--dry-run', 'validate every item, preview service workflows, print estimated cost and calls; spend nothing')
    .option('--set <name=value>', 'set a parameter (repeatable)', collect, [])
    .option('--run-key <key>', 'run key: one run per key, ever (default: manual-<time>; dry run: dry-run-<date>)')
    .option('--wait', 'show progress until the run ends, then where its outputs are')
    .option('--resume', 'start a closed run key again, redoing only the items that did not complete')
    .option('--compare', 'write a change report against the previous completed run of the pipeline')
    .option('--json', 'print JSON')
    .action(async (file: string, options: RunOptions & { dryRun?: boolean }) =>
      done(options.dryRun ? await runPipeline(file, options, io) : await startRunCommand(file, options, io)),
    );
  program
    .command('status')
    .description("a run's progress (or, with --item, one item's research task)")
    .argument('<run>', '<pipeline>/<run key>')
    .option('--item <key>', 'one item')
    .option('--json', 'print JSON')
    .action(async (ref: string, options: RunRefOptions) => done(await statusCommand(ref, options, io)));
  program
    .command('cancel')
    .description('cancel a run (children stop, finished items are kept and written out) or one item')
    .argument('<run>', '<pipeline>/<run key>')
    .option('--item <key>', "cancel one item's research task only (a steps: item's: the step task running now)")
    .option('--step <id>', "with --item: the steps: item's step whose task to cancel")
    .option('--json', 'print JSON')
    .action(async (ref: string, options: RunRefOptions) => done(await cancelCommand(ref, options, io)));
  program
    .command('pause')
    .description('stop starting items (those in flight go on)')
    .argument('<run>', '<pipeline>/<run key>')
    .option('--reason <text>', 'why, shown to operators')
    .option('--json', 'print JSON')
    .action(async (ref: string, options: RunRefOptions & { reason?: string }) => done(await pauseResumeCommand('pause', ref, options, io)));
  program
    .command('resume')
    .description('start items again (after a pause, or after a 402 once credits are topped up); --item resumes one task')
    .argument('<run>', '<pipeline>/<run key>')
    .option('--item <key>', "resume one item's research task (a steps: item's: the step task running now)")
    .option('--step <id>', "with --item: the steps: item's step whose task to resume")
    .option('--reason <text>', 'why')
    .option('--json', 'print JSON')
    .action(async (ref: string, options: RunRefOptions & { reason?: string }) => done(await pauseResumeCommand('resume', ref, options, io)));
  program
    .command('respond')
    .description('answer the checkpoint of an item')
    .argument('<run>', '<pipeline>/<run key>')
    .option('--item <key>', 'the item')
    .option('--step <id>', "a steps: item's step whose task to answer (default: the one running now)")
    .option('--interaction <id>', "the checkpoint's interaction id")
    .option('--response <json>', 'the answer, e.g. {"approved": true}')
    .option('--json', 'print JSON')
    .action(async (ref: string, options: RunRefOptions & { interaction?: string; response?: string }) => done(await respondCommand(ref, options, io)));
  program
    .command('budget')
    .description("raise a run's budget")
    .argument('<run>', '<pipeline>/<run key>')
    .option('--add <usd>', 'add this much')
    .option('--set <usd>', 'new total (more than now)')
    .option('--json', 'print JSON')
    .action(async (ref: string, options: { add?: string; set?: string; json?: boolean }) => done(await budgetCommand(ref, options, io)));
}
