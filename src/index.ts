/** Public API of research-pipelines: the service client, activities, workflow messages, emulator and worker. */
export * from './api';
export {
  createActivities, FileWebhookSecretStore, InMemoryWebhookSecretStore, LocalArtifactStore,
  type ActivityDeps, type ArtifactStore, type ResearchActivities, type WebhookSecretStore,
} from './activities';
export * from './workflows/definitions';
export { FailureType, NON_RETRYABLE_FAILURE_TYPES } from './domain/failures';
export { contextMetadata, pipelineItemWorkflowId, pipelineRunWorkflowId, researchBatchWorkflowId, researchTaskWorkflowId } from './domain/ids';
export * from './pipelines';
export * from './runs/dry-run';
export * from './runs/dry-run-report';
export * from './workflows/search-attributes';
export type * from './workflows/types';
export type * from './domain/research-types';
export type * from './domain/artifacts';
export { startEmulator, type RunningEmulator, type EmulatorOptions } from './emulator';
export { loadConfig, ConfigError, type Config } from './config';
export { runWorker, createWorkerOptions } from './worker';
export { startPipeline, RunKeyConflictError, RunKeyError, type StartPipelineOptions, type StartedPipeline } from './runs/start';
export { scheduleOptionsFor, syncSchedules, planScheduleSync, scheduleIdOf, type SchedulePlan } from './runs/schedules';
export { pipelineRunPrefix, pipelineSynthesisWorkflowId } from './domain/ids';
export type * from './domain/pipeline-types';
export {
  AesGcmPayloadCodec, codecRoutes, dataConverterFromConfig, parseCodecKeys, payloadCodecFromConfig, startCodecServer, PayloadDecryptionError, UnknownCodecKeyError,
  type CodecKeyring, type CodecRoutesOptions, type RunningCodecServer,
} from './codec';
export { createLogger, configSecrets, PinoTemporalLogger } from './logging';
export { installWorkerRuntime } from './observability/runtime';
export { connectionSecurityOptions } from './temporal/connection-options';
