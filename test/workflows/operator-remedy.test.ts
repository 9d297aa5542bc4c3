import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { FailureType } from '../../src/domain/failures';
import { operatorRemedy } from '../../src/workflows/operator-remedy';

const activityFailure = (type: string) =>
  new ActivityFailure(
    'failed',
    'getResearchTask',
    '1',
    RetryState.NON_RETRYABLE_FAILURE,
    undefined,
    ApplicationFailure.create({ type, message: 'refused', nonRetryable: true }),
  );

describe('operatorRemedy', () => {
  it('waits for a top-up after 402', () => {
    expect(operatorRemedy(activityFailure(FailureType.CreditsExhausted))).toEqual({
      waitingFor: 'credits_exhausted',
      detail: expect.stringMatching(/top up.*resume/),
    });
  });

  it('waits for a key or permission fix after 401 and 403', () => {
    expect(operatorRemedy(activityFailure(FailureType.Unauthorized))).toMatchObject({
      waitingFor: 'operator',
      detail: expect.stringContaining('RESEARCH_API_KEY'),
    });
    expect(operatorRemedy(activityFailure(FailureType.Forbidden))).toMatchObject({ waitingFor: 'operator', detail: expect.stringContaining('permission') });
  });

  it('leaves every other failure to fail the workflow', () => {
    for (const type of [FailureType.InvalidRequest, FailureType.NotFound, FailureType.InvalidResponse, FailureType.TaskFailed]) {
      expect(operatorRemedy(activityFailure(type))).toBeUndefined();
    }
    expect(operatorRemedy(new Error('plain'))).toBeUndefined();
  });
});
