import type { CheckpointResponse, CheckpointType } from '../../api/schemas/checkpoints';
import type { ResearchMode } from '../../api/schemas/common';
import type { CostBreakdown } from '../../api/schemas/tasks';
import type { TaskStatus } from '../../api/schemas/tasks';

/** A requested output format: `markdown`, `pdf`, `toon` or a JSON Schema object. */
export type OutputFormat = 'markdown' | 'pdf' | 'toon' | Record<string, unknown>;

/** A requested deliverable after normalisation. */
export interface DeliverableSpec {
  type: string;
  description: string;
}

/** The resolved tool switches of a task. */
export interface ToolSet {
  code_execution: boolean;
  screenshots: boolean;
  browser_use: boolean;
  charts: boolean;
}

/**
 * What a task was asked to do. Batch tasks share one instance with their batch, which keeps per-task
 * memory to the record below.
 */
export interface TaskConfig {
  readonly mode: ResearchMode;
  readonly outputFormats: readonly OutputFormat[];
  readonly tools: ToolSet;
  readonly deliverables: readonly DeliverableSpec[];
  readonly checkpoints: readonly CheckpointType[];
  readonly hitl?: Record<string, boolean>;
  readonly researchStrategy?: string;
  readonly reportFormat?: string;
  readonly urls: readonly string[];
  readonly webhookUrl?: string;
  readonly workflow?: { id: string; version?: number };
}

/** One answered checkpoint. */
export interface HitlEntry {
  interactionId: string;
  type: CheckpointType;
  createdAt: number;
  respondedAt: number;
  /** True when the answer came after the checkpoint had paused the task. */
  afterPause: boolean;
  response: CheckpointResponse;
}

/** A follow-up instruction accepted while the task was running. */
export interface Instruction {
  text: string;
  at: number;
  step: number;
}

/** The compact state of one task; big outputs are generated from `seed` only when read. */
export interface TaskRecord {
  readonly id: string;
  readonly organization: string;
  /** Seeds every generated text, source and file, so reads are stable. */
  readonly seed: number;
  readonly query: string;
  readonly createdAt: number;
  readonly config: TaskConfig;
  readonly metadata?: Record<string, unknown>;
  readonly durationMs: number;
  /** Work time at which the task fails, when it is one of the failing share. */
  readonly failAtWorkMs?: number;
  readonly costUsd: number;
  readonly costBreakdown: CostBreakdown;
  readonly webhookSecret?: string;
  /** Grants access to the task's assets without the owner's key (it goes into asset URLs). */
  readonly assetToken: string;
  readonly batchId?: string;
  readonly batchTaskId?: string;
  status: TaskStatus;
  public: boolean;
  /** Work done before the current running stretch. */
  workMs: number;
  /** When the current running stretch began (set only while `running`). */
  runningSince?: number;
  /** Bumped on every transition, so a scheduled event for an older state is ignored. */
  generation: number;
  /** How many of `config.checkpoints` have been answered. */
  checkpointsDone: number;
  interaction?: { id: string; type: CheckpointType; createdAt: number };
  history: HitlEntry[];
  instructions: Instruction[];
  finishedAt?: number;
  error?: string;
}

/** Work done at `now`, counting the current running stretch. */
export function workAt(task: TaskRecord, now: number): number {
  const running = task.status === 'running' && task.runningSince !== undefined ? now - task.runningSince : 0;
  return Math.min(task.durationMs, task.workMs + Math.max(0, running));
}
