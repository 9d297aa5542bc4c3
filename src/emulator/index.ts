/** The research service emulator: a faithful local implementation over real HTTP on loopback. */
export { startEmulator, DEFAULT_CREDITS_USD, type RunningEmulator } from './server';
export { EmulatorOptionsError, parseEmulatorOptions, type EmulatorOptions } from './options';
export { AccountBook, INSUFFICIENT_CREDITS, type AccountSpec } from './accounts';
export { StatsRecorder, canonicalJson, type ServerStatsSnapshot } from './stats';
export { FaultInjector, faultConfig, routeFaults, type FaultConfig, type RouteFaults } from './faults';
export { rateLimitConfig, type RateLimitConfig } from './rate-limit';
export { createRandom, randomUuid } from './random';
export { systemClock, scaledClock, type Clock, type TimerHandle } from './clock';
export { resolveWorkflowForTask, type WorkflowResolution } from './workflows-beta';
export { CATEGORIES, DATASETS } from './catalogue';
export { CORPUS } from './search/corpus';
export * from './types';
