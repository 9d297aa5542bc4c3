import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';

/** Every line the worker logged (Runtime logger) or wrote to the console while a test file ran. */
export interface CapturedLogs {
  readonly lines: string[];
  /** Forgets what was captured so far. */
  clear(): void;
}

/**
 * Installs a Runtime logger that keeps every entry (DEBUG and up, with its metadata) and wraps the
 * console, so a test can scan what a worker would have printed. Call at the top of a test file,
 * before the scenarios connect: the Runtime is installed once per process.
 */
export function captureWorkerLogs(): CapturedLogs {
  const lines: string[] = [];
  const keep = (entry: LogEntry) => lines.push(`${entry.level} ${entry.message} ${safeJson(entry.meta)}`);
  Runtime.install({ logger: new DefaultLogger('DEBUG', keep) });
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      lines.push(`console.${method} ${args.map((arg) => (typeof arg === 'string' ? arg : safeJson(arg))).join(' ')}`);
      if (method === 'error') original(...args);
    };
  }
  return { lines, clear: () => void lines.splice(0) };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item)) ?? '';
  } catch {
    return String(value);
  }
}
