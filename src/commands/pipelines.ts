import type { Command } from 'commander';
import {
  dryRunPassed, dryRunPipeline, formatDryRunReport, InputError, loadPipelineDefinition, ParameterError,
  parseSetArguments, PipelineDefinitionError, pipelineJsonSchema, stepSpec, type WorkflowPreviewer,
} from '../pipelines';
import type { RunOptions } from './runs';
import { collect, UsageError } from './usage';

/** Where the pipeline commands write. */
export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** `rp pipelines validate <file...>`: 0 when every file is valid, 1 when any is not (each issue printed). */
export async function validatePipelines(files: readonly string[], io: CommandIo): Promise<number> {
  let failed = 0;
  for (const file of files) {
    try {
      const { definition } = await loadPipelineDefinition(file);
      io.stdout(`${file}: ok (${definition.name})\n`);
    } catch (error) {
      if (!(error instanceof PipelineDefinitionError) && !isMissingFile(error)) throw error;
      failed += 1;
      io.stderr(`${error instanceof PipelineDefinitionError ? error.message : `${file}: ${(error as Error).message}`}\n`);
    }
  }
  return failed === 0 ? 0 : 1;
}

const isMissingFile = (error: unknown): boolean => (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' || (error as NodeJS.ErrnoException | undefined)?.code === 'EISDIR';

/** `rp pipelines schema`: the definition's JSON Schema, for editors. */
export function printPipelineSchema(io: CommandIo): number {
  io.stdout(`${JSON.stringify(pipelineJsonSchema(), null, 2)}\n`);
  return 0;
}

/** Opens a previewer on the configured service, or on the embedded emulator when none is configured. */
export type PreviewerOpener = (io: CommandIo) => Promise<{ preview: WorkflowPreviewer; close(): Promise<void> }>;

const openConfiguredPreviewer: PreviewerOpener = async (io) => {
  const [{ loadConfig }, { openResearchService }] = await Promise.all([import('../config'), import('../worker')]);
  const config = loadConfig();
  if (config.research.kind === 'emulator') io.stderr('rp: previewing workflows on the embedded emulator (set RESEARCH_API_BASE_URL and RESEARCH_API_KEY for the service)\n');
  const service = await openResearchService(config);
  return { preview: (slug, request) => service.api.previewWorkflow(slug, request), close: () => service.close() };
};

/**
 * The `--set` overrides (bad ones are bad usage) and the loaded definition of `rp run`; a definition that
 * cannot be read or is invalid is printed and gives exit code 1.
 */
export async function openRunArguments(file: string, set: readonly string[] | undefined, io: CommandIo): Promise<{ loaded: Awaited<ReturnType<typeof loadPipelineDefinition>>; overrides: Record<string, string> } | number> {
  let overrides: Record<string, string>;
  try {
    overrides = parseSetArguments([...(set ?? [])]);
  } catch (error) {
    if (error instanceof ParameterError) throw new UsageError(error.message);
    throw error;
  }
  try {
    return { loaded: await loadPipelineDefinition(file), overrides };
  } catch (error) {
    if (!(error instanceof PipelineDefinitionError) && !isMissingFile(error)) throw error;
    io.stderr(`${error instanceof PipelineDefinitionError ? error.message : `${file}: ${(error as Error).message}`}\n`);
    return 1;
  }
}

/** `rp run <file> --dry-run`: checks every item and prints the estimate; 0 when a run could start, 1 otherwise. */
export async function runPipeline(file: string, options: { dryRun?: boolean; set?: string[]; runKey?: string }, io: CommandIo, openPreviewer: PreviewerOpener = openConfiguredPreviewer): Promise<number> {
  const opened = await openRunArguments(file, options.set, io);
  if (typeof opened === 'number') return opened;
  const { loaded, overrides } = opened;
  const previewer = stepSpec(loaded.definition.step).kind === 'workflow' ? await openPreviewer(io) : undefined;
  try {
    const report = await dryRunPipeline(loaded, { overrides, runKey: options.runKey, previewWorkflow: previewer?.preview });
    io.stdout(formatDryRunReport(report));
    return dryRunPassed(report) ? 0 : 1;
  } catch (error) {
    if (error instanceof ParameterError) throw new UsageError(error.message);
    if (error instanceof InputError) {
      io.stderr(`${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await previewer?.close();
  }
}

/** Adds `rp pipelines validate|schema` and `rp run` to `program`; `done` receives each command's exit code. */
export function addPipelineCommands(program: Command, io: CommandIo, done: (code: number) => void): void {
  const pipelines = program.command('pipelines').description('check pipeline definitions and print their JSON Schema');
  pipelines.command('validate').description('validate pipeline definition files').argument('<file...>', 'definition files (YAML)')
    .action(async (files: string[]) => done(await validatePipelines(files, io)));
  pipelines.command('schema').description('print the JSON Schema of a definition, for editors')
    .action(() => done(printPipelineSchema(io)));
  program.command('run').description('start a pipeline run on the worker (--wait shows progress); --dry-run checks every item and estimates the cost')
    .argument('<file>', 'definition file (YAML)')
    .option('--dry-run', 'validate every item, preview service workflows, print estimated cost and calls; spend nothing')
    .option('--set <name=value>', 'set a parameter (repeatable)', collect, [])
    .option('--run-key <key>', 'run key: one run per key, ever (default: manual-<time>; dry run: dry-run-<date>)')
    .option('--wait', 'show progress until the run ends, then where its outputs are')
    .option('--resume', 'start a closed run key again, redoing only the items that did not complete')
    .option('--compare', 'write a change report against the previous completed run of the pipeline')
    .option('--json', 'print JSON')
    .action(async (file: string, options: RunOptions & { dryRun?: boolean }) => {
      if (options.dryRun) return done(await runPipeline(file, options, io));
      const { startRunCommand } = await import('./runs');
      done(await startRunCommand(file, options, io));
    });
}
