import type { EventEmitter } from 'node:events';
import { Command } from 'commander';
import { z } from 'zod';
import { UsageError, valueFor } from '../shared/usage';
import { isLoopbackHost } from '../api/schemas/webhook-url';
import type { EmulatorOptions } from './options';
import { startEmulator } from './server';

/** Where the command writes and which signals stop it (the process by default; tests pass their own). */
export interface EmulatorCommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  signals: Pick<EventEmitter, 'once' | 'off'>;
}

/** `rp emulator` as commander parses it: flags and help text in one place. */
export function emulatorCommand(): Command {
  const value = (flag: string) => valueFor(flag, (message) => new UsageError(message));
  return new Command('emulator')
    .description('run the research service emulator on loopback until Ctrl+C')
    .helpOption('-h, --help', 'show this help')
    .option('--port <n>', 'port to listen on (0 = a free port; default 0)', value('--port'))
    .option('--host <host>', 'loopback address to bind (default 127.0.0.1)', value('--host'))
    .option('--seed <value>', 'seed for repeatable ids, results and faults', value('--seed'))
    .option('--speed <factor>', 'emulator clock speed (60 = a 15-minute task takes 15 s)', value('--speed'))
    .option('--credits <usd>', 'balance of the generated API key (default 100)', value('--credits'))
    .option('--failure-rate <p>', 'share of DeepResearch tasks that fail, 0 to 1', value('--failure-rate'))
    .option('--capacity <n>', 'DeepResearch tasks running at once (the rest queue)', value('--capacity'));
}

const numeric = /^-?\d+(\.\d+)?$/;
const num = (rule: string, valid: (value: number) => boolean) =>
  z
    .string()
    .refine((value) => numeric.test(value) && valid(Number(value)), `must be ${rule}`)
    .transform(Number);

const FLAG_SCHEMA = z.strictObject({
  port: num('an integer from 0 to 65535', (value) => Number.isInteger(value) && value >= 0 && value <= 65535).optional(),
  host: z.string().refine(isLoopbackHost, 'must be a loopback address (127.0.0.1, localhost or ::1)').optional(),
  seed: z
    .string()
    .min(1, 'must not be empty')
    .transform((value) => (/^\d+$/.test(value) ? Number(value) : value))
    .optional(),
  speed: num('a positive number', (value) => value > 0).optional(),
  credits: num('a number of USD >= 0', (value) => value >= 0).optional(),
  failureRate: num('a number from 0 to 1', (value) => value >= 0 && value <= 1).optional(),
  capacity: num('a positive integer', (value) => Number.isInteger(value) && value >= 1).optional(),
});

const flagName = (key: string): string => `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;

/** Checks the flag values commander collected and turns them into emulator options. */
export function emulatorOptionsFrom(raw: Record<string, unknown>): EmulatorOptions {
  const result = FLAG_SCHEMA.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const key = String(issue?.path[0] ?? 'option');
    throw new UsageError(`${flagName(key)}: ${issue?.message ?? 'invalid value'} (got "${String(raw[key] ?? '')}")`);
  }
  const flags = result.data;
  const research =
    flags.failureRate !== undefined || flags.capacity !== undefined ? { research: { failureRate: flags.failureRate, capacity: flags.capacity } } : {};
  return { port: flags.port, host: flags.host, seed: flags.seed, speed: flags.speed, defaultCreditsUsd: flags.credits, ...research };
}

/** Serves the emulator with `options` until SIGINT or SIGTERM (what `rp emulator` does once its flags are checked). */
export async function serveEmulator(options: EmulatorOptions, io: Partial<EmulatorCommandIo> = {}): Promise<void> {
  const stdout = io.stdout ?? ((text: string) => void process.stdout.write(text));
  const signals = io.signals ?? process;
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
