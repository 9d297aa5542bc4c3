/**
 * Run notifications: the events a pipeline run POSTs to the `notify:` URLs of its definition or its
 * trigger, signed the Standard Webhooks way (https://www.standardwebhooks.com). Plain JSON, sandbox-safe:
 * the run workflow builds the events, the `notifyRun` activity signs and sends them.
 */
import type { PipelineCounts, PipelineOutputs } from './pipeline-types';

/** What happened to the run. */
export type RunEventType = 'run.completed' | 'run.cancelled' | 'run.failed' | 'run.waiting_for_budget' | 'run.waiting_for_person' | 'run.changes_found';

/** The event's `data`: the run's summary, totals and where its outputs are. */
export interface RunEventData {
  pipeline: string;
  runKey: string;
  workflowId: string;
  phase: string;
  /** Why the run waits or failed, in a sentence. */
  detail?: string;
  counts: Omit<PipelineCounts, 'running'> & { running?: number };
  ledger: { budgetUsd: number; spentUsd: number; reservedUsd?: number };
  /** Items waiting for a person (checkpoint answers, an operator's resume). */
  waiting?: { checkpoint: string[]; operator: string[] };
  /** The run's output files (added by the activity: store locations and, with a public intake, HTTP links). */
  outputs?: PipelineOutputs;
}

/** One event as the workflow hands it to `notifyRun`: the id is the Standard Webhooks `webhook-id`, the same on every retry. */
export interface RunEvent {
  id: string;
  type: RunEventType;
  /** When the event happened (ISO 8601), from the workflow's clock. */
  timestamp: string;
  data: RunEventData;
}

/** `notifyRun` input: one receiver, one event. */
export interface NotifyRunInput {
  url: string;
  event: RunEvent;
}

/** `notifyRun` result. */
export interface NotifyRunResult {
  /** false: nothing to say (a change report with no change), or the receiver answered 410 Gone. */
  sent: boolean;
  status?: number;
}

/**
 * The receivers of a run: the definition's, then the trigger's, each once. The trigger's cannot remove
 * the definition's (the author's receivers always hear).
 */
export function notifyTargets(definition: readonly string[] | undefined, trigger: readonly string[] | undefined): string[] {
  return [...new Set([...(definition ?? []), ...(trigger ?? [])])];
}

/**
 * A stable event id: the same for every retry of one event (the activity's input carries it), distinct
 * across executions of one run key (a resume or a continue-as-new has its own run id) and across the
 * events of one execution (`sequence`). Characters a header carries as is.
 */
export function runEventId(parts: { runId: string; type: RunEventType; sequence: number }): string {
  return `evt_${parts.runId.replace(/[^A-Za-z0-9]/g, '')}_${parts.type.replace(/[^a-z]/g, '')}_${parts.sequence}`;
}

/** What the notifier remembers between looks at the run: the waits it has told about. */
export interface WaitMemory {
  budget: boolean;
  person: readonly string[];
}

/**
 * Which wait events a change of the run's state calls for: entering a budget wait (the budget or the
 * account's credits), and items newly waiting for a person (told once per item until it stops waiting).
 * A run draining for continue-as-new still waits as it did: a budget wait told before the drain is not
 * told again after it (the memory crosses continue-as-new).
 */
export function waitEvents(
  before: WaitMemory,
  now: { phase: string; waiting: { checkpoint: readonly string[]; operator: readonly string[] } },
): { events: Array<'run.waiting_for_budget' | 'run.waiting_for_person'>; memory: WaitMemory } {
  const budget = now.phase === 'waiting_for_budget' || now.phase === 'credits_exhausted' || (now.phase === 'draining' && before.budget);
  const person = [...new Set([...now.waiting.checkpoint, ...now.waiting.operator])].sort();
  const events: Array<'run.waiting_for_budget' | 'run.waiting_for_person'> = [];
  if (budget && !before.budget) events.push('run.waiting_for_budget');
  if (person.some((key) => !before.person.includes(key))) events.push('run.waiting_for_person');
  return { events, memory: { budget, person } };
}
