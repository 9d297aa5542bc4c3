/**
 * The root of research-pipelines: the names a backend, a workflow and a worker all share, and nothing
 * that does I/O: workflow ids, signal, query and update definitions, search attribute keys, failure
 * types and the workflows' input and state types. Requiring it loads only `@temporalio/workflow` and
 * `@temporalio/common`. Everything else has its own entry, so an import loads only what it needs:
 * `research-pipelines/client` (the service client, pipelines, `startPipeline`, run control, the codec),
 * `/workflows`, `/activities`, `/worker`, `/intake`, `/codec`, `/emulator`.
 */
export * from './workflows/definitions';
export { FailureType, NON_RETRYABLE_FAILURE_TYPES } from './domain/failures';
export {
  contextMetadata,
  pipelineItemWorkflowId,
  pipelineRunPrefix,
  pipelineRunWorkflowId,
  pipelineSynthesisWorkflowId,
  researchBatchWorkflowId,
  researchTaskWorkflowId,
} from './domain/ids';
export * from './workflows/search-attributes';
export type * from './workflows/types';
export type * from './domain/pipeline-types';
export type * from './domain/research-types';
export type * from './domain/artifacts';
