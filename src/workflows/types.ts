/** Inputs, results and state of the research workflows: plain JSON, shared with clients by `import type`. */
import type { CollectedBatchTask, CreatedResearchTask } from '../activities/types';
import type { StoredOutputs } from '../domain/artifacts';
import type {
  BatchCounts,
  BatchStatus,
  CheckpointResponse,
  CheckpointType,
  CreateBatchRequest,
  CreateTaskRequest,
  Interaction,
  ResearchMode,
  TaskStatus,
} from '../api/schemas';
import type { ArtifactRef } from '../domain/artifacts';
import type { PollingOverrides, ResearchContext } from '../domain/research-types';

/** `researchTaskWorkflow` input: the task request (every field of spec 2.4) plus its context. */
export interface ResearchTaskInput {
  request: CreateTaskRequest;
  context?: ResearchContext;
  polling?: PollingOverrides;
  /**
   * A task that exists at the service already (an earlier run left it open): followed from where it
   * stands instead of creating one.
   */
  existingTask?: string;
  /** Delete the task at the service once its outputs are stored. */
  deleteAfterStore?: boolean;
  /** History length after which the workflow continues as new (5,000 unless set; the server may suggest sooner). */
  continueAsNewAfterEvents?: number;
  /** Continued-as-new state; callers leave it unset. */
  carried?: ResearchTaskCarried;
}

/** What a research task run hands the next across continue-as-new. */
export interface ResearchTaskCarried {
  created: CreatedResearchTask;
  startedAt: number;
  /** When the workflow learned the task exists (the create's answer, or the adoption): the poll schedule's origin. Absent from runs before it was carried: `startedAt`. */
  taskSeenAt?: number;
  model: ResearchTaskModelCarried;
  resumeRequested: boolean;
  /** The pipeline run (workflow id) that adopted this item and waits for its outcome (see itemAdoptedSignal). */
  reportTo?: string;
}

/** The research task model as plain JSON (see ResearchTaskModel.carry). */
export interface ResearchTaskModelCarried {
  deepresearchId?: string;
  status: ResearchTaskState['status'];
  waitingFor: WaitReason;
  detail?: string;
  progress?: { currentStep: number; totalSteps: number };
  interaction?: Interaction;
  cost?: number;
  error?: string;
  polls: number;
  webhooks: number;
  waitingForInputMs: number;
  rejectedAnswers: RejectedAnswer[];
  rejectedSignals: RejectedSignal[];
  instructions: ResearchTaskState['instructions'];
  answered: string[];
  inputSince?: number;
  seenCheckpoints: CheckpointType[];
}

/** Why the workflow is waiting, shown in the state query and the UI's current details. */
export type WaitReason = 'creating' | 'reconciling_create' | 'credits_exhausted' | 'operator' | 'research' | 'checkpoint' | 'storing_outputs';

/** A checkpoint answer the workflow refused, kept visible for operators. */
export interface RejectedAnswer {
  interactionId: string;
  reason: string;
  at: number;
}

/** A signal the workflow could not act on, and why. */
export interface RejectedSignal {
  signal: string;
  reason: string;
  at: number;
}

/** What `researchTaskStateQuery` returns. */
export interface ResearchTaskState {
  deepresearchId?: string;
  status: TaskStatus | 'creating' | 'cancel_refused';
  mode: ResearchMode;
  waitingFor: WaitReason;
  /** Human-readable explanation of the wait (e.g. "credits exhausted: top up, then send resume"). */
  detail?: string;
  progress?: { currentStep: number; totalSteps: number };
  interaction?: Interaction;
  rejectedAnswers: RejectedAnswer[];
  /** Signals whose payload was malformed, recorded instead of acted on (the last 20). */
  rejectedSignals: RejectedSignal[];
  instructions: Array<{ instruction: string; accepted: boolean; reason?: string }>;
  cost?: number;
  polls: number;
  webhooks: number;
  error?: string;
  /** Time spent finding out whether a create whose answer was lost made a task (looking, then waiting for an operator). */
  reconcilingMs: number;
  /** Time a checkpoint waited for a person so far, the wait still open included. */
  waitingForInputMs?: number;
  /** Once the task has ended: what was stored (a cancelled workflow ends Canceled, without a result, so the query keeps it). */
  outputs?: StoredOutputs;
}

/** A checkpoint answer as signals and updates carry it. */
export interface CheckpointAnswer {
  interactionId: string;
  response: CheckpointResponse;
}

/** What a webhook tells the workflow, and an operator's decision on an unknown create: typed by their schemas. */
export type { CreateDecision, WebhookNotice } from '../domain/messages';

/** `researchBatchWorkflow` input. */
export interface ResearchBatchInput {
  batch: CreateBatchRequest;
  /** Tasks to add (on a continued run: those not added yet). Empty when `tasksRef` names them. */
  tasks: Array<{ id: string; query: string }>;
  /**
   * The tasks as JSON lines of `{id, query}` in the artifact store, for batches whose queries would not
   * fit in a payload (2 MB): the workflow then holds only how many were added, never the queries.
   */
  tasksRef?: BatchTasksRef;
  context?: ResearchContext;
  polling?: PollingOverrides;
  /** History length after which the workflow continues as new; 5,000 unless set (tests set it low). */
  continueAsNewAfterEvents?: number;
  /** Continued-as-new state; callers leave it unset. */
  carried?: ResearchBatchCarried;
}

/** Where a batch's tasks are: a JSON-lines artifact, and how many lines it has. */
export interface BatchTasksRef {
  key: string;
  count: number;
}

/** State a batch workflow carries across continue-as-new. */
export interface ResearchBatchCarried {
  batchId: string;
  phase: 'adding' | 'following' | 'collecting';
  webhookConfigured: boolean;
  tasksTotal: number;
  tasksAdded: number;
  /** Collected tasks kept inline, at most `MAX_INLINE_BATCH_TASKS`; every one is in the manifests. */
  collected: CollectedBatchTask[];
  collectedCount: number;
  manifests: ArtifactRef[];
  lastKey?: string;
  polls: number;
  startedAt: number;
  /** A `resume` that arrived before the run continued as new, and what the operator was shown. */
  resumeRequested?: boolean;
  detail?: string;
  /** Cancelled by request: it collects what finished, then ends Canceled (even after continuing as new). */
  cancelled?: boolean;
}

/** What `researchBatchStateQuery` returns. */
export interface ResearchBatchState {
  batchId?: string;
  phase: 'creating' | 'adding' | 'following' | 'collecting' | 'done';
  /** Set while the workflow waits for an operator (credits exhausted: top up, then send resume). */
  detail?: string;
  status?: BatchStatus;
  counts?: BatchCounts;
  tasksAdded: number;
  tasksTotal: number;
  collected: number;
  cost?: number;
  polls: number;
  /** A batch cancelled by request ends Canceled, which keeps no result: what it collected is here. */
  result?: ResearchBatchResult;
}

/** `pipelineBatchSettled`: a service batch's workflow cancelled by request tells its run what it collected before it ends Canceled. */
export interface BatchSettledReport {
  /** The batch workflow that reports. */
  workflowId: string;
  result: ResearchBatchResult;
}

/** `researchBatchWorkflow` result: counts, references to every stored output, and the first tasks inline. */
export interface ResearchBatchResult {
  batchId: string;
  status: BatchStatus;
  counts: BatchCounts;
  cost?: number;
  /** The first collected tasks (at most `MAX_INLINE_BATCH_TASKS`); all of them are in `manifests`. */
  tasks: CollectedBatchTask[];
  tasksTruncated: boolean;
  collectedCount: number;
  /** One JSON-lines manifest per collected page. */
  manifests: ArtifactRef[];
}
