import type { Logger as TemporalLogger } from '@temporalio/common';
import { createLogger, PinoTemporalLogger } from '../../src/logging';
import { installWorkerRuntime } from '../../src/observability/runtime';

/** What test workers log: warnings and errors, readable on stderr. */
const TEST_LOG = { level: 'warn', format: 'pretty' } as const;

const loggers = new Map<string, TemporalLogger>();

/**
 * The project's logger (src/logging.ts) as the SDK's Logger, for activity test environments: the same
 * redaction as a real worker's, so no task token, API key or webhook secret reaches a test's output.
 * Lines at `level` and above go to stderr. One logger a level per test file.
 */
export function redactingTestLogger(level: 'warn' | 'error' = TEST_LOG.level): TemporalLogger {
  let logger = loggers.get(level);
  if (!logger) {
    logger = new PinoTemporalLogger(createLogger({ log: { ...TEST_LOG, level } }, { destination: process.stderr }));
    loggers.set(level, logger);
  }
  return logger;
}

/**
 * Installs a test process's SDK runtime the way the worker does (src/observability/runtime.ts), with
 * the redacting logger at warnings. A runtime already installed (another block, or a test's own
 * choice) is kept.
 */
export function installTestRuntime(): void {
  installWorkerRuntime({ log: TEST_LOG }, createLogger({ log: TEST_LOG }, { destination: process.stderr }));
}
