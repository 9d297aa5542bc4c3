import { messageSchemas } from './message-schemas';
import type { BudgetLedger, PipelineCounts, PipelineRunPhase } from '../domain/pipeline-types';

/** Items that need nothing more: finished one way or another, by this run or an earlier execution. */
export function settledCount(counts: PipelineCounts): number {
  return counts.completed + counts.failed + counts.cancelled + counts.reused + counts.skipped;
}

/**
 * Rate and estimated time left, from items this run finished and the time it had items in flight. No
 * estimate once the run has ended, nor while every item in flight waits for a person: nobody can say
 * when people answer, and a rate-based figure would look like a promise.
 */
export function estimateTimeLeft(input: { counts: PipelineCounts; total?: number; activeMs: number; blockedOnPeople?: boolean; phase?: PipelineRunPhase }): {
  etaMs?: number;
  itemsPerMinute?: number;
} {
  const worked = input.counts.completed + input.counts.failed + input.counts.cancelled;
  if (worked === 0 || input.activeMs <= 0) return {};
  const perMs = worked / input.activeMs;
  const itemsPerMinute = Math.round(perMs * 60_000 * 10) / 10;
  if (input.total === undefined || input.blockedOnPeople) return { itemsPerMinute };
  if (input.phase === 'completed' || input.phase === 'failed' || input.phase === 'cancelled') return { itemsPerMinute };
  const left = Math.max(0, input.total - settledCount(input.counts));
  // Nothing left: no estimate (a finished run does not say "about 0s left").
  if (left === 0) return { itemsPerMinute };
  return { itemsPerMinute, etaMs: Math.round(left / perMs) };
}

const usd = (value: number): string => `${value.toFixed(2)} USD`;

/** A duration as people say it: `45s`, `12m 5s`, `2h 10m`. */
export function durationText(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

/** The run's current details for the Temporal UI (Markdown): phase, counts, money, time left, why it waits. */
export function runDetails(input: {
  phase: PipelineRunPhase;
  counts: PipelineCounts;
  total?: number;
  ledger: BudgetLedger;
  etaMs?: number;
  detail?: string;
  waiting?: { checkpoint: number; operator: number; longestMs?: { checkpoint?: number; operator?: number } };
}): string {
  const { counts, ledger } = input;
  const of = input.total === undefined ? `${counts.read}+ read` : `${input.total}`;
  const lines = [
    `**${input.phase}** · ${settledCount(counts)} of ${of} settled`,
    `${counts.completed} completed · ${counts.failed} failed · ${counts.running} running${counts.reused ? ` · ${counts.reused} from an earlier execution` : ''}${counts.cancelled ? ` · ${counts.cancelled} cancelled` : ''}${counts.skipped ? ` · ${counts.skipped} not started` : ''}`,
    `spent ${usd(ledger.spentUsd)} + ${usd(ledger.reservedUsd)} reserved of ${usd(ledger.budgetUsd)}`,
  ];
  const waiting = input.waiting ?? { checkpoint: 0, operator: 0 };
  if (waiting.checkpoint > 0)
    lines.push(
      `${peopleWaitText('checkpoint', waiting.checkpoint, waiting.longestMs?.checkpoint)} (at a checkpoint): answer with \`rp respond\` or the item's respondToCheckpoint update`,
    );
  if (waiting.operator > 0)
    lines.push(`${peopleWaitText('operator', waiting.operator, waiting.longestMs?.operator)} (credits, key or permission): fix it, then send resumePipeline`);
  const people = waiting.checkpoint + waiting.operator;
  // The rate knows nothing of how long people take to answer: the estimate says it leaves them out.
  if (input.etaMs !== undefined)
    lines.push(`about ${durationText(input.etaMs)} left${people > 0 ? `, not counting the ${people} item(s) waiting for a person` : ''}`);
  if (input.detail) lines.push(input.detail);
  return lines.join('\n\n');
}

/** "waiting for 3 answers, oldest 2h 0m": items blocked on people, and for how long the longest has waited. */
export function peopleWaitText(kind: 'checkpoint' | 'operator', count: number, longestMs?: number): string {
  const what = kind === 'checkpoint' ? (count === 1 ? '1 answer' : `${count} answers`) : count === 1 ? 'an operator (1 item)' : `an operator (${count} items)`;
  return `waiting for ${what}${longestMs !== undefined && longestMs > 0 ? `, oldest ${durationText(longestMs)}` : ''}`;
}

/** Why an item's waiting notice is refused (undefined when fine). */
export function itemWaitingProblem(payload: unknown): string | undefined {
  const { checkMessage, itemWaitingNotice } = messageSchemas();
  return problemOf(checkMessage(itemWaitingNotice, payload));
}

/** Why an adopted item's report is refused (undefined when fine). */
export function itemSettledProblem(payload: unknown): string | undefined {
  const { checkMessage, itemSettledReport } = messageSchemas();
  return problemOf(checkMessage(itemSettledReport, payload));
}

/** Why a pause or resume signal's payload is refused (undefined when fine): nothing, or `{reason}` text. */
export function operatorSignalProblem(payload: unknown): string | undefined {
  const { checkMessage, pipelineControlNote } = messageSchemas();
  return problemOf(checkMessage(pipelineControlNote, payload));
}

const problemOf = (checked: { problem: string } | object): string | undefined => ('problem' in checked ? checked.problem : undefined);
