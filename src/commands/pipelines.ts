import type { Command } from 'commander';
import {
  definitionKinds,
  InputError,
  loadPipelineDefinition,
  ParameterError,
  PipelineDefinitionError,
  pipelineJsonSchema,
  resolveParameters,
  type LoadedPipeline,
} from '../pipelines';
import { checkInput } from '../pipelines/input-check';
import { dryRunPipeline, type WorkflowPreviewer } from '../runs/dry-run';
import { dryRunPassed, formatDryRunReport } from '../runs/dry-run-report';
import { UsageError } from '../shared/usage';
import { definitionFailure, isMissingFile, json, openRunArguments, printFailure, type CommandIo, type JsonError } from './common';

/** What `rp pipelines validate --json` prints for one file. */
export type ValidationResult =
  { file: string; valid: true; pipeline: string; items: number; note?: string } | ({ file: string; valid: false } & Omit<JsonError['error'], 'kind'>);

/**
 * The input of a valid definition, read to its end as a run would (`checkInput`), with the parameters'
 * defaults: problems make the file invalid; parameters without a default leave the keys unchecked (a note).
 */
async function validateInput(file: string, loaded: LoadedPipeline): Promise<ValidationResult> {
  const { definition } = loaded;
  let params;
  let note: string | undefined;
  try {
    params = resolveParameters(definition.parameters, undefined, { textValues: true });
  } catch (error) {
    if (!(error instanceof ParameterError)) throw error;
    // Without an input there is one item and no key to check; else the keys wait for the parameters' values.
    const missing = Object.entries(definition.parameters).filter(([, spec]) => spec.default === undefined);
    if (definition.input)
      note = `item keys not checked: no default for ${missing.map(([name]) => name).join(', ') || 'some parameters'} (rp run ${file} --dry-run --set name=value checks them)`;
  }
  const check = await checkInput(loaded, params ? { params } : undefined);
  if (check.problems.length === 0) return { file, valid: true, pipeline: definition.name, items: check.items, ...(note ? { note } : {}) };
  const issues = check.problems.map((message) => ({ file, path: 'input', message }));
  return { file, valid: false, message: check.problems.map((problem) => `${file}: ${problem}`).join('\n'), issues };
}

/**
 * `rp pipelines validate <file...>`: each definition checked, and its input read to its end (the file,
 * its items, keys and fields); 0 when every file is valid, 1 when any is not (each problem printed).
 */
export async function validatePipelines(files: readonly string[], io: CommandIo, options: { json?: boolean } = {}): Promise<number> {
  const results: ValidationResult[] = [];
  for (const file of files) {
    try {
      const result = await validateInput(file, await loadPipelineDefinition(file));
      results.push(result);
      if (options.json) continue;
      if (result.valid)
        io.stdout(`${file}: ok (${result.pipeline}, ${result.items} item${result.items === 1 ? '' : 's'})\n${result.note ? `  note: ${result.note}\n` : ''}`);
      else io.stderr(`${result.message}\n`);
    } catch (error) {
      if (!(error instanceof PipelineDefinitionError) && !isMissingFile(error)) throw error;
      const { kind: _kind, ...failure } = definitionFailure(file, error);
      results.push({ file, valid: false, ...failure });
      if (!options.json) io.stderr(`${failure.message}\n`);
    }
  }
  const valid = results.every((result) => result.valid);
  if (options.json) io.stdout(json({ valid, files: results }));
  return valid ? 0 : 1;
}

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
  if (config.research.kind === 'emulator')
    io.stderr('rp: previewing workflows on the embedded emulator (set RESEARCH_API_BASE_URL and RESEARCH_API_KEY for the service)\n');
  const service = await openResearchService(config);
  return { preview: (slug, request) => service.api.previewWorkflow(slug, request), close: () => service.close() };
};

/**
 * `rp run <file> --dry-run`: checks every item and prints the estimate (with `--json`, the report and
 * `passed`); 0 when a run could start, 1 otherwise.
 */
export async function runPipeline(
  file: string,
  options: { dryRun?: boolean; set?: string[]; runKey?: string; json?: boolean },
  io: CommandIo,
  openPreviewer: PreviewerOpener = openConfiguredPreviewer,
): Promise<number> {
  const opened = await openRunArguments(file, options.set, io, options);
  if (typeof opened === 'number') return opened;
  const { loaded, overrides } = opened;
  const previewer = definitionKinds(loaded.definition).includes('workflow') ? await openPreviewer(io) : undefined;
  try {
    const report = await dryRunPipeline(loaded, { overrides, runKey: options.runKey, previewWorkflow: previewer?.preview });
    const passed = dryRunPassed(report);
    io.stdout(options.json ? json({ ...report, passed }) : formatDryRunReport(report));
    return passed ? 0 : 1;
  } catch (error) {
    if (error instanceof ParameterError) throw new UsageError(error.message);
    if (error instanceof InputError) return printFailure(io, options, { kind: 'definition', message: error.message });
    throw error;
  } finally {
    await previewer?.close();
  }
}

/** Adds `rp pipelines validate|schema` to `program`; `done` receives each command's exit code. */
export function addPipelineCommands(program: Command, io: CommandIo, done: (code: number) => void): void {
  const pipelines = program.command('pipelines').description('check pipeline definitions and print their JSON Schema');
  pipelines
    .command('validate')
    .description('validate pipeline definition files and read their inputs (files, items, keys, the fields templates use)')
    .argument('<file...>', 'definition files (YAML)')
    .option('--json', 'print JSON: {valid, files: [{file, valid, pipeline, items | message, issues}]}')
    .action(async (files: string[], options: { json?: boolean }) => done(await validatePipelines(files, io, options)));
  pipelines
    .command('schema')
    .description('print the JSON Schema of a definition, for editors')
    .option('--json', 'print JSON (the schema is JSON already)')
    .action(() => done(printPipelineSchema(io)));
}
