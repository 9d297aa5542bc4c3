#!/usr/bin/env node
/** The `rp` command: emulator, worker, dev, pipelines and run, parsed by commander. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { json, type JsonError } from './commands/common';
import { addPipelineCommands } from './commands/pipelines';
import { addRunCommands } from './commands/runs';
import { addScheduleCommands } from './commands/schedules';
import { isHelpExit, parsePort, usageMessage, UsageError } from './shared/usage';
import { loadConfig, ConfigError } from './config';
import { emulatorCommand, emulatorOptionsFrom } from './emulator/command';

/** Where `rp dev` keeps the dev server's state unless told otherwise: beside the project's Temporal binaries (ignored by git). */
const DEV_DATABASE_DEFAULT = '.temporal/dev-server.db';

const log = (line: string): void => void process.stderr.write(`${line}\n`);

/** The package's version, read from its package.json (beside dist/ and src/ alike). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}

/** Exit codes: 0 ok, 1 invalid definition or failed, 2 bad usage. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

function buildProgram(done: (code: number) => void): Command {
  const program = new Command('rp')
    .description('Durable bulk research on Temporal against the Search / Answer / DeepResearch service')
    .version(packageVersion(), '-V, --version', 'prints the version of research-pipelines')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void process.stdout.write(text),
      writeErr: (text) => void process.stderr.write(text),
      // Errors are printed once by main, in the `rp: --flag: rule` form.
      outputError: () => undefined,
    });
  const emulator = emulatorCommand();
  emulator.copyInheritedSettings(program);
  program.addCommand(
    emulator.action(async (options: Record<string, unknown>) => {
      const { serveEmulator } = await import('./emulator/command');
      await serveEmulator(emulatorOptionsFrom(options));
      done(EXIT.ok);
    }),
  );
  program
    .command('worker')
    .description('run the Temporal worker, configured from the environment (see README)')
    .action(async () => {
      const { runWorker } = await import('./worker');
      await runWorker(loadConfig());
      done(EXIT.ok);
    });
  program
    .command('intake')
    .description('the HTTP intake: service webhooks, app-event triggers, checkpoint answers (see README)')
    .option('--port <port>', 'port to listen on', parsePort(), 8788)
    .option('--host <host>', 'address to bind (non-loopback wants TLS)', '127.0.0.1')
    .action(async (options: { port: number; host: string }) => {
      const { loadIntakeConfig, runIntake } = await import('./intake');
      const { openArtifactStore } = await import('./activities/open-store');
      const config = loadIntakeConfig();
      const store = await openArtifactStore(config.artifactStore ?? { kind: 'local', dir: config.artifactDir });
      await runIntake(config, { port: options.port, host: options.host }, { store, results: store });
      done(EXIT.ok);
    });
  program
    .command('dev')
    .description('Temporal dev server with its UI, emulator, worker and an example pipeline run to the end with a live progress bar')
    .option('--keep-open', 'after the run, keep the dev server, its UI and the worker up until Ctrl-C')
    .option('--ui-only', 'start only the dev server and its UI on the kept state, to look at earlier runs again (Ctrl-C stops it)')
    .option('--db <file>', 'where the dev server keeps its state between sessions', DEV_DATABASE_DEFAULT)
    .option('--in-memory', "keep the dev server's state in memory only (gone when rp dev exits)")
    .action(async (options: { keepOpen?: boolean; uiOnly?: boolean; db: string; inMemory?: boolean }) => {
      const { runDev, runDevUi } = await import('./dev');
      const config = loadConfig();
      const speed = Number(process.env.EMULATOR_SPEED ?? 60);
      if (!(speed > 0)) throw new ConfigError([{ variable: 'EMULATOR_SPEED', message: 'must be a positive number' }]);
      if (options.uiOnly && options.inMemory) throw new UsageError('--ui-only shows the kept state: it cannot be combined with --in-memory');
      // Ctrl-C cancels the run, then stops the worker, the emulator and the dev server.
      const interrupt = new AbortController();
      const stop = () => interrupt.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const codec = config.codec ? { codec: config.codec } : {};
      const database = options.inMemory ? {} : { database: options.db };
      const session = options.uiOnly
        ? runDevUi({ database: options.db, signal: interrupt.signal, log, ...codec })
        : runDev({
            artifactDir: config.artifactDir,
            speed,
            research: config.research,
            signal: interrupt.signal,
            log,
            progress: process.stderr,
            keepOpen: options.keepOpen === true,
            ...database,
            ...codec,
          });
      await session.finally(() => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      });
      done(EXIT.ok);
    });
  program
    .command('register-search-attributes')
    .description("adds the project's custom search attributes missing on the namespace (a one-shot deploy job)")
    .option('--json', 'print JSON: {namespace, added}')
    .action(async (options: { json?: boolean }) => {
      const { registerConfiguredSearchAttributes } = await import('./commands/search-attributes');
      const result = await registerConfiguredSearchAttributes(loadConfig(), log);
      if (options.json) process.stdout.write(json(result));
      done(EXIT.ok);
    });
  program
    .command('codec-server')
    .description('the payload codec endpoint for the Temporal UI (/encode, /decode), keys from PAYLOAD_CODEC_KEYS')
    .option('--port <port>', 'port to listen on', parsePort(), 8888)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .action(async (options: { port: number; host: string }) => {
      const { serveCodec } = await import('./commands/codec-server');
      await serveCodec(loadConfig(), options, log);
      done(EXIT.ok);
    });
  const io = { stdout: (text: string) => void process.stdout.write(text), stderr: (text: string) => void process.stderr.write(text) };
  addPipelineCommands(program, io, done);
  addRunCommands(program, io, done);
  addScheduleCommands(program, io, done);
  return program;
}

/** `--json` among the arguments (before a `--` that ends the options): errors are printed as JSON too. */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/** What a failed `rp ... --json` prints on stdout, and its exit code. */
function jsonError(error: unknown): { code: number; document: JsonError } {
  if (error instanceof CommanderError) return { code: EXIT.usage, document: { error: { kind: 'usage', message: usageMessage(error) } } };
  if (error instanceof UsageError) return { code: EXIT.usage, document: { error: { kind: 'usage', message: error.message } } };
  if (error instanceof ConfigError) return { code: EXIT.failed, document: { error: { kind: 'config', message: error.message, issues: error.issues } } };
  return { code: EXIT.failed, document: { error: { kind: 'failed', message: error instanceof Error ? error.message : String(error) } } };
}

/**
 * Runs one `rp` command; resolves with the process exit code. Bad usage (unknown command or flag, a bad
 * flag value, a bad `--set`) prints `rp: <flag>: <rule>` and resolves 2; configuration errors reject.
 * With `--json`, every error is one JSON document on stdout (`{"error": {"kind", "message"}}`) and the
 * promise resolves with its exit code (2 bad usage, 1 otherwise).
 */
export async function main(argv: string[]): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram((result) => {
    code = result;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (error) {
    if (isHelpExit(error)) return EXIT.ok;
    if (wantsJson(argv) && !(error instanceof CommanderError && error.code === 'commander.help')) {
      const failed = jsonError(error);
      process.stdout.write(json(failed.document));
      return failed.code;
    }
    if (error instanceof CommanderError) {
      // `rp` alone: commander printed the help to stderr.
      if (error.code !== 'commander.help') log(`rp: ${usageMessage(error)}`);
      return EXIT.usage;
    }
    if (error instanceof UsageError) {
      log(`rp: ${error.message}`);
      return EXIT.usage;
    }
    throw error;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      log(error instanceof Error ? `rp: ${error.message}` : `rp: ${String(error)}`);
      process.exitCode = EXIT.failed;
    },
  );
}
