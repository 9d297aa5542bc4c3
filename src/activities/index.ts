/** Temporal activities of research pipelines, built with `createActivities(deps)`. */
import type { ActivityDeps } from './deps';
import { keepingAlive } from './context';
import { batchActivities } from './batches';
import { outputActivities } from './outputs';
import { pipelineBatchPrepareActivities } from './pipeline-batch-prepare';
import { pipelineBatchRecordActivities } from './pipeline-batch-record';
import { pipelineOutputActivities } from './pipeline-outputs';
import { pipelineSynthesisActivities } from './pipeline-synthesis';
import { pipelineItemCallActivities } from './pipeline-item-calls';
import { pipelineItemBatchActivities } from './pipeline-item-batches';
import { pipelineRecordActivities } from './pipeline-items';
import { pipelinePageActivities } from './pipeline-pages';
import { pipelineStepActivities } from './pipeline-steps';
import { itemWorkflowActivities } from './item-workflows';
import { pipelineKeyActivities } from './pipeline-keys';
import { taskActionActivities } from './task-actions';
import { taskActivities } from './tasks';
import { notifyActivities } from './notify';
import { sqlSinkActivities } from './sql-sink';

/**
 * Every activity, bound to its dependencies. The worker registers the object; workflows proxy it through
 * `ReturnType<typeof createActivities>`. Each activity takes one object and returns plain JSON.
 */
export function createActivities(deps: ActivityDeps) {
  return keptAlive({
    ...taskActivities(deps),
    ...taskActionActivities(deps),
    ...outputActivities(deps),
    ...batchActivities(deps),
    ...pipelinePageActivities(deps),
    ...pipelineStepActivities(deps),
    ...pipelineItemCallActivities(deps),
    ...pipelineItemBatchActivities(deps),
    ...pipelineRecordActivities(deps),
    ...pipelineKeyActivities(),
    ...itemWorkflowActivities(),
    ...pipelineOutputActivities(deps),
    ...pipelineSynthesisActivities(deps),
    ...pipelineBatchPrepareActivities(deps),
    ...pipelineBatchRecordActivities(deps),
    ...notifyActivities(deps),
    ...sqlSinkActivities(deps),
  });
}

/** Every activity heartbeating while it waits, when its options ask for heartbeats (see `keepingAlive`). */
function keptAlive<T extends Record<string, (...args: never[]) => Promise<unknown>>>(activities: T): T {
  const wrapped = { ...activities };
  for (const name of Object.keys(wrapped) as Array<keyof T>) wrapped[name] = keepingAlive(wrapped[name]!) as T[keyof T];
  return wrapped;
}

/** The activities object, as workflows see it through `proxyActivities`. */
export type ResearchActivities = ReturnType<typeof createActivities>;

export type { ActivityDeps } from './deps';
export * from './types';
export { ArtifactKeyError, ArtifactNotFoundError, LocalArtifactStore, checkKey, type ArtifactData, type ArtifactStore } from './store';
export { ArtifactStoreUnreachableError, openArtifactStore, type ArtifactLocation } from './open-store';
export type { S3ArtifactStore } from './s3-store';
export {
  EncryptedWebhookSecretStore,
  FileWebhookSecretStore,
  InMemoryWebhookSecretStore,
  openWebhookSecretStore,
  WebhookSecretRecordError,
  type WebhookSecretStore,
} from '../shared/webhook-secrets';
export { classifyApiError, failureFromApiError, rethrowAsFailure, STATE_REFUSAL_STATUSES, type FailureMappingOptions } from './errors';
export { createOutcomeOf, rethrowCreateFailure, type CreateOutcome } from './create-outcome';
export { REQUEST_KEY_FIELD, snapshotOf } from './tasks';
export { MAX_TASKS_PER_ADD, snapshotOfBatch } from './batches';
export { DEFAULT_COLLECT_PAGE_SIZE } from './batch-collect';
export { itemRecordKey, itemResultKey, type PipelineRunRef, type RecordPipelineItemsInput } from './pipeline-items';
export type { ReadPipelinePageInput } from './pipeline-pages';
export { stepRecordKey, type PlanPipelineStepInput, type RecordPipelineStepInput } from './pipeline-steps';
export type { RunPipelineItemInput } from './pipeline-item-calls';
export type { RunPipelineItemsInput } from './pipeline-item-batches';
export type { PipelineKeyCheck } from './pipeline-keys';
export type { LookItemWorkflowInput, LookedItemWorkflow } from './item-workflows';
export type { BatchRoundSource } from './pipeline-batch-rounds';
export { MAX_TASKS_PER_PIPELINE_BATCH, type PreparePipelineBatchInput, type PreparedBatchRound } from './pipeline-batch-prepare';
export type { RecordPipelineBatchInput, RecordedBatchRound } from './pipeline-batch-record';
export type { WritePipelineOutputsInput } from './pipeline-outputs';
export type { PreparePipelineSynthesisInput } from './pipeline-synthesis';
export type { SinkPipelineRowsInput, SinkPipelineRowsResult } from './sql-sink';
