import { CommanderError } from 'commander';

/**
 * A bad command line (exit code 2); the message names the flag or argument and the rule. Shared by `rp`
 * and `rp emulator`, so it lives outside `src/commands` (the emulator must not import the commands).
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * Commander's parse errors in the form every `rp` error takes, `--flag: rule`. Commander reports
 * them as sentences ("option '--port <n>' argument missing"); only the wording changes here.
 */
export function usageMessage(error: CommanderError): string {
  const [first = '', ...rest] = error.message.replace(/^error: /, '').split('\n');
  const flag = /option '(-[^\s',]+)/.exec(first)?.[1] ?? /'(-[^']+)'/.exec(first)?.[1];
  const hint = rest
    .filter(Boolean)
    .map((line) => ` ${line.trim()}`)
    .join('');
  switch (error.code) {
    case 'commander.optionMissingArgument':
      return `${flag}: needs a value`;
    case 'commander.unknownOption':
      return `${flag}: unknown option (see --help)${hint}`;
    default:
      return `${first}${hint}`;
  }
}

/**
 * An option parser that refuses a value which is the next flag: commander takes the word after a
 * value flag greedily, so `--port --seed 1` would otherwise read "--seed" as the port.
 */
export function valueFor(flag: string, make: (message: string) => Error = (message) => new UsageError(message)) {
  return (value: string): string => {
    if (/^--[A-Za-z]/.test(value)) throw make(`${flag}: needs a value`);
    return value;
  };
}

/** Collects a repeatable option's values in order (`--set a=1 --set b=2`). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** True for the commander "errors" that are help or version output, which end the command with 0. */
export function isHelpExit(error: unknown): boolean {
  return error instanceof CommanderError && (error.code === 'commander.helpDisplayed' || error.code === 'commander.version');
}

/**
 * The one port parser of the command line (`--port`), as a commander option parser: a whole number
 * from 0 (any free port) to 65535, refused with the flag, the rule and the value otherwise.
 */
export function parsePort(flag = '--port', make: (message: string) => Error = (message) => new UsageError(message)) {
  return (value: string): number => {
    if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535) throw make(`${flag}: must be an integer from 0 to 65535 (got "${value}")`);
    return Number(value);
  };
}
