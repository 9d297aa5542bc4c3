/** What a research task workflow serves, how it polls, and what it returns: shared by the pipeline run and its activities. */
import type { ResearchMode, TaskStatus } from '../api/schemas';
import type { StoredOutputs } from './artifacts';

/** Which pipeline run and item a workflow serves: it names the workflow id and the task's metadata. */
export interface ResearchContext {
  pipeline?: string;
  run?: string;
  item?: string;
}

/** Overrides of the adaptive polling schedule (e.g. a faster one against a sped-up emulator). */
export interface PollingOverrides {
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Delays between looks at the task list after a create whose answer was lost (RECONCILE_DELAYS_MS unless set). */
  reconcileDelaysMs?: number[];
  /** How long a create nobody can settle waits for an operator's decision before the item fails (default 7 days). */
  createDecisionWaitMs?: number;
}

/** `researchTaskWorkflow` result: references and figures, never report bodies. */
export interface ResearchTaskResult {
  deepresearchId: string;
  status: 'completed' | 'cancelled';
  mode: ResearchMode;
  /**
   * After a cancel the service refused (it cancels only queued or running tasks; one waiting at a
   * checkpoint stays there): the task's status at the service and what stays open.
   */
  openAtService?: { status: TaskStatus; detail: string };
  outputs: StoredOutputs;
  cost?: number;
  sourceCount: number;
  timings: { startedAt: number; finishedAt: number; durationMs: number; waitingForInputMs: number; reconcilingMs?: number };
  polls: number;
  webhooks: number;
}
