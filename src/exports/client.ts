/**
 * `research-pipelines/client`: what a backend imports to start and steer research from its own
 * Temporal client. Everything the root has (workflow ids, signal, query and update definitions, search
 * attributes, failure types, workflow types), and the research service's typed client, pipeline
 * definitions and `startPipeline`, run control, schedules, the payload codec every client of a
 * deployment shares, and the configuration the worker reads.
 *
 * Importing it loads neither `@temporalio/client` (the backend brings its own `Client`; only types are
 * taken from it here) nor the worker, fastify, pino or the emulator: keep every import below narrow.
 */
export * from '../index';
export * from '../api';
export * from '../pipelines';
export * from '../runs/dry-run';
export * from '../runs/dry-run-report';
export { startPipeline, RunKeyConflictError, RunKeyError, type StartPipelineOptions, type StartedPipeline } from '../runs/start';
export { answerItemCheckpoint, cancelRun, checkpointWaits, currentItemWorkflowId, runProgress, type RunProgress } from '../runs/control';
export { scheduleOptionsFor, syncSchedules, planScheduleSync, scheduleIdOf, type SchedulePlan } from '../runs/schedules';
export { AesGcmPayloadCodec, PayloadDecryptionError, UnknownCodecKeyError } from '../codec/aes-gcm-codec';
export { CodecKeyConfigError, parseCodecKeys, type CodecKey, type CodecKeyring } from '../codec/keys';
export { dataConverterFromConfig, MissingCodecKeysError, payloadCodecFromConfig } from '../codec/data-converter';
export { loadConfig, ConfigError, type Config } from '../config';
export { connectionSecurityOptions, type ConnectionSecurityOptions } from '../temporal/connection-options';
