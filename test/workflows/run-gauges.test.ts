import type { PipelineRunPhase } from '../../src/domain/pipeline-types';
import { runGaugeValues, type RunGaugeSource } from '../../src/workflows/run-gauges';

const source = (phase: PipelineRunPhase, inFlight = 2, waiting = 1): RunGaugeSource => ({
  phase,
  inFlight: { size: inFlight },
  waitingItems: { size: waiting },
  ledger: { reservedUsd: 0.4, spentUsd: 1.25 },
});

describe('the gauges of a pipeline run', () => {
  test('a running run shows its items in flight, those waiting for a person and its money', () => {
    expect(runGaugeValues(source('running'))).toEqual({
      inFlight: 2,
      waitingForPerson: 1,
      waitingForBudget: 0,
      waitingForCredits: 0,
      reservedUsd: 0.4,
      spentUsd: 1.25,
    });
  });

  test('a run waiting for budget or for credits says so, one flag each', () => {
    expect(runGaugeValues(source('waiting_for_budget', 0, 0))).toMatchObject({ waitingForBudget: 1, waitingForCredits: 0 });
    expect(runGaugeValues(source('credits_exhausted', 0, 0))).toMatchObject({ waitingForBudget: 0, waitingForCredits: 1 });
  });

  test.each<PipelineRunPhase>(['completed', 'failed', 'cancelled'])(
    'a run that ended (%s) settles at nothing in flight, waiting or reserved, and keeps its spend',
    (phase) => {
      expect(runGaugeValues(source(phase))).toEqual({
        inFlight: 0,
        waitingForPerson: 0,
        waitingForBudget: 0,
        waitingForCredits: 0,
        reservedUsd: 0,
        spentUsd: 1.25,
      });
    },
  );
});
