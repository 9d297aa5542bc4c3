/**
 * Inputs and outputs of the activities: plain JSON, safe to `import type` from workflow code. Nothing
 * here carries a report body, a file or a secret: those stay in the artifact store or the activity's
 * dependencies, and history holds references.
 */
import type {
  BatchCounts,
  BatchStatus,
  CheckpointResponse,
  CreateBatchRequest,
  CreateTaskRequest,
  Interaction,
  ResearchMode,
  TaskStatus,
} from '../api/schemas';
import type { ArtifactRef, StoredOutputs } from '../domain/artifacts';

/** `createResearchTask` input: the request and a key that finds the task again in the service's list. */
export interface CreateResearchTaskInput {
  request: CreateTaskRequest;
  /** Unique per intended task; written into the task's metadata as `rp_request_key`. */
  requestKey: string;
  /**
   * An earlier create for this request key was started (and may have reached the service): look for
   * its task before sending. Activity attempts count themselves; this covers new activities after a
   * `resume` or a reconciliation.
   */
  mayHaveBeenSent?: boolean;
  /** With mayHaveBeenSent: when the first create was sent (ISO), so the look-up reaches back that far. */
  createdAfter?: string;
}

/** A task the service accepted (its webhook secret, if any, is kept out of this result). */
export interface CreatedResearchTask {
  deepresearchId: string;
  status: TaskStatus;
  mode: ResearchMode;
  createdAt: string;
  /** True when a completion webhook was requested for this task. */
  webhookConfigured: boolean;
  /** True when the task was found in the service's list instead of being created by this call. */
  adopted: boolean;
}

/** `findResearchTask` input. */
export interface FindResearchTaskInput {
  requestKey: string;
  /** The query the create sent (absent for a workflow template run): only list items with it are candidates. */
  query?: string;
  /** ISO time before the first create was sent: tasks created earlier (beyond clock skew) are not candidates. */
  createdAfter?: string;
}

/** The status fields a workflow decides on; the output body is never included. */
export interface TaskSnapshot {
  deepresearchId: string;
  status: TaskStatus;
  mode: ResearchMode;
  progress?: { currentStep: number; totalSteps: number };
  interaction?: Interaction;
  cost?: number;
  error?: string;
  completedAt?: string;
}

/** Input of the activities that act on one task by id. */
export interface TaskIdInput {
  deepresearchId: string;
}

/** `addResearchInstruction` result: the service took the instruction. */
export interface InstructionAccepted {
  accepted: true;
  message?: string;
}

/** `answerResearchCheckpoint` result: the service took the answer; `status` when it said which. */
export interface CheckpointAnswered {
  accepted: true;
  status?: TaskStatus;
}

/** `deleteResearchTask` result; false when the task was already gone (a retried delete). */
export interface DeleteResult {
  deleted: boolean;
}

/** `addResearchInstruction` input. */
export interface AddInstructionInput {
  deepresearchId: string;
  instruction: string;
}

/** `answerResearchCheckpoint` input. */
export interface AnswerCheckpointInput {
  deepresearchId: string;
  interactionId: string;
  response: CheckpointResponse;
}

/** `cancelResearchTask` result: whether this call cancelled it, and the status after. */
export interface CancelResult {
  cancelled: boolean;
  status: TaskStatus;
}

/** `storeResearchOutputs` input: which task, and the store prefix for its files. */
export interface StoreOutputsInput {
  deepresearchId: string;
  keyPrefix: string;
}

/** `storeEndedResearchOutputs` result: the task's status, and its stored outputs when it has ended. */
export interface EndedTaskOutputs {
  snapshot: TaskSnapshot;
  outputs?: StoredOutputs;
}

/** `createResearchBatch` input. */
export interface CreateBatchInput {
  request: CreateBatchRequest;
  requestKey: string;
}

/** A batch the service accepted (its webhook secret is kept out of this result). */
export interface CreatedBatch {
  batchId: string;
  status: BatchStatus;
  webhookConfigured: boolean;
  adopted: boolean;
}

/** `addResearchBatchTasks` input: at most 100 tasks with caller-chosen ids. */
export interface AddBatchTasksInput {
  batchId: string;
  /** The tasks themselves, or (with `tasksRef`) none: the activity reads `limit` lines from `offset`. */
  tasks: Array<{ id: string; query: string }>;
  tasksRef?: { key: string; offset: number; limit: number };
  /** List the batch's tasks first and add only missing ids (after a refused or ambiguous add). */
  reconcile?: boolean;
}

/** `addResearchBatchTasks` result; `skipped` counts ids the batch already had (a retried add). */
export interface AddedBatchTasks {
  added: number;
  skipped: number;
  counts: BatchCounts;
}

/** Input of the activities that act on one batch by id. */
export interface BatchIdInput {
  batchId: string;
}

/** `cancelResearchBatch` result; `cancelled: false` when the batch had already ended. */
export interface BatchCancelResult {
  cancelled: boolean;
  status: BatchStatus;
  cancelledCount: number;
}

/** Batch status as a workflow sees it. */
export interface BatchSnapshot {
  batchId: string;
  status: BatchStatus;
  counts: BatchCounts;
  cost?: number;
}

/** `collectResearchBatchPage` input. */
export interface CollectBatchPageInput {
  batchId: string;
  keyPrefix: string;
  lastKey?: string;
  pageSize?: number;
  /** When given, the page's entries are also written as `<keyPrefix>/manifests/page-<index>.jsonl`. */
  pageIndex?: number;
}

/** One stored batch task. */
export interface CollectedBatchTask {
  batchTaskId?: string;
  deepresearchId: string;
  status: TaskStatus;
  report?: ArtifactRef;
  sources?: ArtifactRef;
  sourceCount: number;
  cost?: number;
  error?: string;
}

/** One page of collected batch tasks, with where to go on. */
export interface CollectedBatchPage {
  tasks: CollectedBatchTask[];
  /** The page's entries as JSON lines, when a page index was given. */
  manifest?: ArtifactRef;
  nextKey?: string;
  hasMore: boolean;
}
