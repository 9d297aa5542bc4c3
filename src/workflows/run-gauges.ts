import { metricMeter } from '@temporalio/workflow';
import type { PipelineRunPhase } from '../domain/pipeline-types';
import { RUN_GAUGES } from './metric-names';

/** What a pipeline run's gauges show: the pure projection of its model (see `runGaugeValues`). */
export interface RunGaugeValues {
  inFlight: number;
  waitingForPerson: number;
  waitingForBudget: number;
  waitingForCredits: number;
  reservedUsd: number;
  spentUsd: number;
}

/** The part of a run's model the gauges read. */
export interface RunGaugeSource {
  phase: PipelineRunPhase;
  inFlight: { size: number };
  waitingItems: { size: number };
  ledger: { reservedUsd: number; spentUsd: number };
}

/** Phases after which a run does no more work: nothing is in flight, waiting or reserved any more. */
const ENDED: ReadonlySet<PipelineRunPhase> = new Set<PipelineRunPhase>(['completed', 'failed', 'cancelled']);

/** The gauge values of a run in its current state; an ended run shows nothing in flight, waiting or reserved. */
export function runGaugeValues(model: RunGaugeSource): RunGaugeValues {
  const ended = ENDED.has(model.phase);
  return {
    inFlight: ended ? 0 : model.inFlight.size,
    waitingForPerson: ended ? 0 : model.waitingItems.size,
    waitingForBudget: model.phase === 'waiting_for_budget' ? 1 : 0,
    waitingForCredits: model.phase === 'credits_exhausted' ? 1 : 0,
    reservedUsd: ended ? 0 : model.ledger.reservedUsd,
    spentUsd: model.ledger.spentUsd,
  };
}

/**
 * Sets the run's gauges on the worker's meter. Metrics go through a sink the SDK skips while a history
 * replays, and issue no command, so this is safe anywhere in the run's workflow code.
 */
export function setRunGauges(pipeline: string, model: RunGaugeSource): void {
  const values = runGaugeValues(model);
  const tags = { pipeline };
  for (const [key, name] of Object.entries(RUN_GAUGES) as Array<[keyof RunGaugeValues, string]>) {
    const usd = key.endsWith('Usd');
    metricMeter.createGauge(name, usd ? 'float' : 'int', usd ? 'USD' : undefined).set(values[key], tags);
  }
}
