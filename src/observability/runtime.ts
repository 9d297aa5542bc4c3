import { IllegalStateError } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { PinoTemporalLogger } from '../logging';
import { TASK_COST_METRIC } from '../workflows/metric-names';

/** Buckets of the task cost histogram, in USD (the SDK's defaults are for milliseconds). */
export const TASK_COST_BUCKETS_USD = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100];

const CORE_LEVEL = { trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR' } as const;

/**
 * Installs the SDK runtime once, before any connection or worker: SDK, worker, workflow and activity
 * logs go to pino; with METRICS_BIND_ADDRESS the SDK serves Prometheus metrics there (its own and the
 * project's, recorded through its metric meter). Returns false when a runtime already exists in this
 * process (a second worker, a test), which keeps its settings.
 */
export function installWorkerRuntime(config: Pick<Config, 'log' | 'metricsBindAddress'>, logger: Logger): boolean {
  try {
    Runtime.install({
      logger: new PinoTemporalLogger(logger),
      telemetryOptions: {
        // Core's own lines are forwarded to pino too, at warnings at least (its INFO is very chatty).
        logging: { filter: { core: CORE_LEVEL[config.log.level === 'error' ? 'error' : 'warn'], other: 'ERROR' }, forward: {} },
        ...(config.metricsBindAddress
          ? { metrics: { prometheus: { bindAddress: config.metricsBindAddress, histogramBucketOverrides: { [TASK_COST_METRIC]: TASK_COST_BUCKETS_USD } } } }
          : {}),
      },
    });
    return true;
  } catch (error) {
    // Only "already installed or instantiated" is expected; a bad bind address and the like must surface.
    if (error instanceof IllegalStateError) return false;
    throw error;
  }
}
