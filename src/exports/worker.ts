/**
 * `research-pipelines/worker`: running the Temporal worker, or building one's own. `runWorker` is what
 * `rp worker` runs; `createWorkerOptions` gives the options (workflows bundle, interceptors, activities)
 * for a `Worker.create` of your own, with `createActivities` from `research-pipelines/activities`.
 */
export {
  createWorkerOptions,
  openResearchService,
  runWorker,
  startEmbeddedEmulator,
  WORKER_SHUTDOWN_GRACE,
  WORKFLOW_INTERCEPTOR_MODULES,
  type EmbeddedEmulatorStarter,
  type ResearchConnection,
  type RunWorkerOptions,
} from '../worker';
export { compactWorkerHeap, COMPACT_HEAP_GROWING_PERCENT, COMPACT_SEMI_SPACE_MB, type HeapSettings } from '../worker-heap';
export { loadConfig, ConfigError, type Config, type WorkerHeapMode } from '../config';
export { createLogger, configSecrets, PinoTemporalLogger, type LoggerOptions } from '../logging';
export { installWorkerRuntime } from '../observability/runtime';
export { ensureSearchAttributes, registerSearchAttributes, searchAttributeCommands } from '../register-search-attributes';
export { connectionSecurityOptions, type ConnectionSecurityOptions } from '../temporal/connection-options';
export { dataConverterFromConfig } from '../codec/data-converter';
