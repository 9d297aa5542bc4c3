#!/usr/bin/env node
/** The `rp` command: emulator, worker and dev. */
import { loadConfig, ConfigError } from './config';

const USAGE = `Usage: rp <command> [options]

Commands:
  emulator   run the research service emulator on loopback (rp emulator --help)
  worker     run the Temporal worker, configured from the environment (see README)
  dev        emulator + worker + one sample research task, printed when done
`;

const log = (line: string): void => void process.stderr.write(`${line}\n`);

/** Runs one `rp` command; resolves with the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'emulator': {
      const { runEmulatorCommand } = await import('./emulator/command');
      await runEmulatorCommand(rest);
      return 0;
    }
    case 'worker': {
      const { runWorker } = await import('./worker');
      await runWorker(loadConfig());
      return 0;
    }
    case 'dev': {
      const { runDev } = await import('./dev');
      const config = loadConfig();
      const speed = Number(process.env.EMULATOR_SPEED ?? 60);
      if (!(speed > 0)) throw new ConfigError([{ variable: 'EMULATOR_SPEED', message: 'must be a positive number' }]);
      // Ctrl-C cancels the sample task, then stops the worker, the emulator and the dev server.
      const interrupt = new AbortController();
      const stop = () => interrupt.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        const result = await runDev({ artifactDir: config.artifactDir, speed, signal: interrupt.signal, log });
        process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        return 0;
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    }
    case undefined:
    case '-h':
    case '--help':
      process.stdout.write(USAGE);
      return command === undefined ? 1 : 0;
    default:
      log(`rp: unknown command "${command}"\n\n${USAGE}`);
      return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (error: unknown) => {
      log(error instanceof ConfigError || error instanceof Error ? `rp: ${error.message}` : `rp: ${String(error)}`);
      process.exitCode = 1;
    },
  );
}
