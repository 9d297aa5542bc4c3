import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import type { ArtifactRef, StoredOutputs } from '../../src/domain/artifacts';
import { FailureType } from '../../src/domain/failures';
import {
  adoptedOutcome,
  alreadyRanOutcome,
  batchEntryOutcome,
  cancelledItemCallOutcome,
  childOutcome,
  failedBatchOutcomes,
  failedChildOutcome,
  failedItemCallOutcome,
  itemCallOutcome,
} from '../../src/workflows/pipeline-item-outcomes';
import type { ResearchTaskResult } from '../../src/domain/research-types';

const ref = (key: string): ArtifactRef => ({ key, uri: `file:///store/${key}`, bytes: 10, contentType: 'application/json', sha256: 'x' });
const outputs = (cost?: number): StoredOutputs => ({
  status: 'completed',
  deliverables: [],
  images: [],
  sourceCount: 2,
  report: ref('report.md'),
  ...(cost !== undefined ? { cost } : {}),
});
const taskResult = (overrides: Partial<ResearchTaskResult> = {}): ResearchTaskResult => ({
  deepresearchId: 'dr_1',
  status: 'completed',
  mode: 'fast',
  outputs: outputs(0.4),
  cost: 0.5,
  sourceCount: 2,
  timings: { startedAt: 0, finishedAt: 1, durationMs: 1, waitingForInputMs: 0 },
  polls: 1,
  webhooks: 0,
  ...overrides,
});
/** An item call's failure as the workflow sees it: an activity failure caused by the activity's application failure. */
const callFailure = (type: string, details: unknown[] = []) =>
  new ActivityFailure(
    'activity failed',
    'runPipelineItem',
    '1',
    RetryState.NON_RETRYABLE_FAILURE,
    undefined,
    ApplicationFailure.create({ type, message: `${type} happened`, nonRetryable: true, details }),
  );
/** A research task child's failure: a child workflow failure caused by the workflow's application failure. */
const childFailure = (details: unknown[]) =>
  new ChildWorkflowFailure(
    'default',
    { workflowId: 'w', runId: 'r' },
    'researchTaskWorkflow',
    RetryState.NON_RETRYABLE_FAILURE,
    ApplicationFailure.create({ type: FailureType.TaskFailed, message: 'task failed', nonRetryable: true, details }),
  );

describe("what a pipeline run records of an item's research task", () => {
  it("counts what the task cost (its result's cost first, then its outputs'), with its outputs", () => {
    expect(childOutcome('w', taskResult())).toEqual({ status: 'completed', costUsd: 0.5, workflowId: 'w', outputs: outputs(0.4) });
    expect(childOutcome('w', taskResult({ cost: undefined }))).toMatchObject({ costUsd: 0.4 });
    expect(childOutcome('w', taskResult({ cost: undefined, outputs: outputs() }))).toMatchObject({ costUsd: 0 });
  });

  it('notes a cancelled task the service left open, so a resumed run follows it instead of paying again', () => {
    const outcome = childOutcome('w', taskResult({ status: 'cancelled', openAtService: { status: 'awaiting_input', detail: 'refused to cancel' } }));
    expect(outcome).toMatchObject({ status: 'cancelled', openAtService: { deepresearchId: 'dr_1', status: 'awaiting_input' }, error: 'refused to cancel' });
  });

  it('counts what a failed task stored and paid before it failed', () => {
    expect(failedChildOutcome('w', childFailure([{ outputs: outputs(0.3) }]))).toEqual({
      status: 'failed',
      costUsd: 0.3,
      workflowId: 'w',
      outputs: outputs(0.3),
      error: 'task failed',
      failureType: FailureType.TaskFailed,
    });
    expect(failedChildOutcome('w', childFailure([]))).toMatchObject({ status: 'failed', costUsd: 0 });
  });

  it('fails an item whose workflow ran outside the run, without starting it twice', () => {
    expect(alreadyRanOutcome('w')).toMatchObject({
      status: 'failed',
      costUsd: 0,
      failureType: FailureType.InvalidInput,
      error: expect.stringContaining('not started twice'),
    });
  });

  it("takes an adopted item's report as the task's own result would be taken", () => {
    expect(adoptedOutcome('w', { status: 'completed', result: taskResult() })).toEqual(childOutcome('w', taskResult()));
    expect(adoptedOutcome('w', { status: 'cancelled' })).toEqual({ status: 'cancelled', costUsd: 0, workflowId: 'w' });
    expect(adoptedOutcome('w', { status: 'failed', error: 'boom', failureType: FailureType.TaskFailed, outputs: outputs(0.2) })).toEqual({
      status: 'failed',
      costUsd: 0.2,
      workflowId: 'w',
      outputs: outputs(0.2),
      error: 'boom',
      failureType: FailureType.TaskFailed,
    });
    expect(adoptedOutcome('w', { status: 'failed' })).toMatchObject({ costUsd: 0, error: "the item's workflow failed" });
  });
});

describe('what a pipeline run records of an Answer, Search or Contents call', () => {
  const result = ref('results/a.json');

  it('counts what the call cost', () => {
    expect(itemCallOutcome({ costUsd: 0.01, result })).toEqual({ status: 'completed', costUsd: 0.01, result });
  });

  it('counts, and says, what earlier attempts that never reported back may have been charged', () => {
    expect(itemCallOutcome({ costUsd: 0.01, result, possiblyChargedUsd: 0.02 })).toEqual({
      status: 'completed',
      costUsd: 0.03,
      result,
      possiblyChargedUsd: 0.02,
      error: expect.stringContaining('possibly charged twice: 0.02 USD'),
    });
  });

  it('counts a call cancelled in flight at its reserved price', () => {
    expect(cancelledItemCallOutcome(0.05)).toMatchObject({ status: 'cancelled', costUsd: 0.05 });
  });

  it('puts an item back for the operator when credits ran out (402), spending nothing', () => {
    expect(failedItemCallOutcome(callFailure(FailureType.CreditsExhausted), 0.05)).toEqual({ status: 'credits_exhausted' });
  });

  it('counts a call that may have been charged at its reserved price, plus earlier lost attempts', () => {
    expect(failedItemCallOutcome(callFailure(FailureType.PossiblyCharged), 0.05)).toMatchObject({
      status: 'failed',
      costUsd: 0.05,
      possiblyChargedUsd: 0.05,
      failureType: FailureType.PossiblyCharged,
    });
    expect(failedItemCallOutcome(callFailure(FailureType.PossiblyCharged, [{ earlierPossiblyChargedUsd: 0.5 }]), 0.25)).toMatchObject({
      costUsd: 0.75,
      possiblyChargedUsd: 0.75,
    });
  });

  it('counts a refused call as free, unless earlier attempts may have been charged', () => {
    const refused = failedItemCallOutcome(callFailure(FailureType.InvalidRequest), 0.05);
    expect(refused).toEqual({ status: 'failed', costUsd: 0, error: `${FailureType.InvalidRequest} happened`, failureType: FailureType.InvalidRequest });
    expect(failedItemCallOutcome(callFailure(FailureType.ServiceUnavailable, [{ earlierPossiblyChargedUsd: 0.1 }]), 0.05)).toMatchObject({
      costUsd: 0.1,
      possiblyChargedUsd: 0.1,
    });
  });
});

describe('outcomes of items run in one batch (runPipelineItems)', () => {
  const result = ref('results/acme.json');

  it('counts each item as its own activity would: a completion with what earlier lost attempts may have been charged', () => {
    expect(batchEntryOutcome({ key: 'acme', status: 'completed', outcome: { costUsd: 0.01, result, possiblyChargedUsd: 0.02 } }, 0.05)).toEqual(
      itemCallOutcome({ costUsd: 0.01, result, possiblyChargedUsd: 0.02 }),
    );
  });

  it('counts a lost answer at the reserved price plus earlier lost attempts, a refusal as free, a 402 as a wait for credits', () => {
    expect(
      batchEntryOutcome({ key: 'a', status: 'failed', error: 'lost', failureType: FailureType.PossiblyCharged, earlierPossiblyChargedUsd: 0.5 }, 0.25),
    ).toEqual({ status: 'failed', costUsd: 0.75, possiblyChargedUsd: 0.75, error: 'lost', failureType: FailureType.PossiblyCharged });
    expect(batchEntryOutcome({ key: 'a', status: 'failed', error: 'bad', failureType: FailureType.InvalidRequest }, 0.25)).toEqual({
      status: 'failed',
      costUsd: 0,
      error: 'bad',
      failureType: FailureType.InvalidRequest,
    });
    expect(batchEntryOutcome({ key: 'a', status: 'failed', error: '402', failureType: FailureType.CreditsExhausted }, 0.25)).toEqual({
      status: 'credits_exhausted',
    });
  });

  it('counts an item the batch did not report on at its reserved price', () => {
    expect(batchEntryOutcome(undefined, 0.05)).toMatchObject({ status: 'failed', costUsd: 0.05, possiblyChargedUsd: 0.05 });
  });

  it('keeps the items a failed batch reported as ended in its last heartbeat; the others fail as their own activity would', () => {
    const timedOut = new ActivityFailure(
      'activity failed',
      'runPipelineItems',
      '1',
      RetryState.MAXIMUM_ATTEMPTS_REACHED,
      undefined,
      new TimeoutFailure('heartbeat', { done: [{ key: 'acme', status: 'completed', outcome: { costUsd: 0.01, result } }] }, TimeoutType.HEARTBEAT),
    );
    const outcomes = failedBatchOutcomes(timedOut, [
      { key: 'acme', reserveUsd: 0.05 },
      { key: 'globex', reserveUsd: 0.05 },
    ]);
    expect(outcomes[0]).toEqual({ status: 'completed', costUsd: 0.01, result });
    expect(outcomes[1]).toEqual(failedItemCallOutcome(timedOut, 0.05));
    expect(failedBatchOutcomes(callFailure(FailureType.PossiblyCharged), [{ key: 'acme', reserveUsd: 0.05 }])).toEqual([
      failedItemCallOutcome(callFailure(FailureType.PossiblyCharged), 0.05),
    ]);
  });
});
