import type { EventEmitter } from 'node:events';
import { z } from 'zod';
import { isLoopbackHost } from '../api/schemas/webhook-url';
import type { EmulatorOptions } from './options';
import { startEmulator } from './server';

/** A bad command line; the message names the flag and the rule. */
export class EmulatorCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmulatorCommandError';
  }
}

/** Where the command writes and which signals stop it (the process by default; tests pass their own). */
export interface EmulatorCommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  signals: Pick<EventEmitter, 'once' | 'off'>;
}

/** Usage text of `rp emulator`. */
export const EMULATOR_USAGE = `Usage: rp emulator [options]

Runs the research service emulator on loopback until Ctrl+C.

Options:
  --port <n>            port to listen on (0 = a free port; default 0)
  --host <host>         loopback address to bind (default 127.0.0.1)
  --seed <value>        seed for repeatable ids, results and faults
  --speed <factor>      emulator clock speed (60 = a 15-minute task takes 15 s)
  --credits <usd>       balance of the generated API key (default 100)
  --failure-rate <p>    share of DeepResearch tasks that fail, 0 to 1
  --capacity <n>        DeepResearch tasks running at once (the rest queue)
  -h, --help            show this help
`;

const numeric = /^-?\d+(\.\d+)?$/;
const num = (rule: string, valid: (value: number) => boolean) => z.string()
  .refine((value) => numeric.test(value) && valid(Number(value)), `must be ${rule}`)
  .transform(Number);

const FLAG_SCHEMA = z.strictObject({
  '--port': num('an integer from 0 to 65535', (value) => Number.isInteger(value) && value >= 0 && value <= 65535).optional(),
  '--host': z.string().refine(isLoopbackHost, 'must be a loopback address (127.0.0.1, localhost or ::1)').optional(),
  '--seed': z.string().min(1, 'must not be empty').transform((value) => (/^\d+$/.test(value) ? Number(value) : value)).optional(),
  '--speed': num('a positive number', (value) => value > 0).optional(),
  '--credits': num('a number of USD >= 0', (value) => value >= 0).optional(),
  '--failure-rate': num('a number from 0 to 1', (value) => value >= 0 && value <= 1).optional(),
  '--capacity': num('a positive integer', (value) => Number.isInteger(value) && value >= 1).optional(),
});

/** Parses `rp emulator` arguments into emulator options, or returns `help`. */
export function parseEmulatorArgs(argv: readonly string[]): EmulatorOptions | 'help' {
  const raw: Record<string, string> = {};
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? '';
    if (argument === '-h' || argument === '--help') return 'help';
    const [name = '', inline] = argument.startsWith('--') ? argument.split(/=(.*)/s, 2) : [argument];
    if (!(name in FLAG_SCHEMA.shape)) throw new EmulatorCommandError(`${argument}: unknown option (see --help)`);
    const value = inline ?? argv[++index];
    if (value === undefined || (inline === undefined && value.startsWith('--'))) throw new EmulatorCommandError(`${name}: needs a value`);
    raw[name] = value;
  }
  const result = FLAG_SCHEMA.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const flag = String(issue?.path[0] ?? 'option');
    throw new EmulatorCommandError(`${flag}: ${issue?.message ?? 'invalid value'} (got "${raw[flag] ?? ''}")`);
  }
  const flags = result.data;
  const research = flags['--failure-rate'] !== undefined || flags['--capacity'] !== undefined
    ? { research: { failureRate: flags['--failure-rate'], capacity: flags['--capacity'] } }
    : {};
  return {
    port: flags['--port'],
    host: flags['--host'],
    seed: flags['--seed'],
    speed: flags['--speed'],
    defaultCreditsUsd: flags['--credits'],
    ...research,
  };
}

/**
 * `rp emulator`: starts the emulator, prints its URL and the default API key (the one place a key is
 * printed: the operator needs it), and stops cleanly on SIGINT or SIGTERM.
 */
export async function runEmulatorCommand(argv: string[], io: Partial<EmulatorCommandIo> = {}): Promise<void> {
  const stdout = io.stdout ?? ((text: string) => void process.stdout.write(text));
  const signals = io.signals ?? process;
  const options = parseEmulatorArgs(argv);
  if (options === 'help') {
    stdout(EMULATOR_USAGE);
    return;
  }
  const emulator = await startEmulator(options);
  stdout(`Research service emulator listening on ${emulator.url}\n`);
  stdout(`API key: ${emulator.defaultApiKey}\n`);
  stdout(`Operator routes: ${emulator.origin}/_emulator/stats, ${emulator.origin}/_emulator/faults\n`);
  stdout('Press Ctrl+C to stop.\n');
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      signals.off('SIGINT', stop);
      signals.off('SIGTERM', stop);
      resolve();
    };
    signals.once('SIGINT', stop);
    signals.once('SIGTERM', stop);
  });
  await emulator.close();
  stdout('Emulator stopped.\n');
}
