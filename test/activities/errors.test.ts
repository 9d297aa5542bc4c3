import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { redactingTestLogger } from '../support/test-logger';
import { ResearchApiError } from '../../src/api';
import { classifyApiError, failureFromApiError, rethrowAsFailure, STATE_REFUSAL_STATUSES } from '../../src/activities';
import { FailureType } from '../../src/domain/failures';
import { API_KEY } from './helpers';

const target = { method: 'POST', path: '/v1/deepresearch/tasks' };

function httpError(status: number, headers: Record<string, string> = {}): ResearchApiError {
  return ResearchApiError.fromResponse({
    ...target,
    status,
    headers,
    bodyText: JSON.stringify({ success: false, error: `said ${status}` }),
    secrets: [API_KEY],
  });
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('failure classification by status', () => {
  test.each([
    [400, FailureType.InvalidRequest, true],
    [401, FailureType.Unauthorized, true],
    [402, FailureType.CreditsExhausted, true],
    [403, FailureType.Forbidden, true],
    [404, FailureType.NotFound, true],
    [408, FailureType.ServiceUnavailable, false],
    [409, FailureType.Refused, true],
    [410, FailureType.Refused, true],
    [422, FailureType.Refused, true],
    [429, FailureType.RateLimited, false],
    [500, FailureType.ServiceUnavailable, false],
    [502, FailureType.ServiceUnavailable, false],
    [503, FailureType.ServiceUnavailable, false],
    [504, FailureType.ServiceUnavailable, false],
  ])('%i becomes %s (nonRetryable %s)', (status, type, nonRetryable) => {
    const failure = failureFromApiError(httpError(status));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type, nonRetryable });
    expect(failure.message).toContain(`failed with ${status}: said ${status}`);
    expect(failure.details).toEqual([expect.objectContaining({ status, kind: 'http' })]);
  });

  test('429 retries after the Retry-After the service gave', () => {
    const failure = failureFromApiError(httpError(429, { 'retry-after': '7' }));
    expect(failure).toMatchObject({ type: FailureType.RateLimited, nonRetryable: false, nextRetryDelay: 7000 });
  });

  test('503 with Retry-After carries the delay too', () => {
    expect(failureFromApiError(httpError(503, { 'retry-after': '3' })).nextRetryDelay).toBe(3000);
  });

  test('a non-retryable status ignores Retry-After', () => {
    expect(failureFromApiError(httpError(400, { 'retry-after': '3' })).nextRetryDelay).toBeUndefined();
  });

  test('network failures and timeouts are retryable ServiceUnavailable', () => {
    const network = ResearchApiError.fromNetworkError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), target);
    const timeout = ResearchApiError.fromNetworkError(new DOMException('timed out', 'TimeoutError'), target);
    expect(classifyApiError(network)).toEqual({ type: FailureType.ServiceUnavailable, nonRetryable: false });
    expect(classifyApiError(timeout)).toEqual({ type: FailureType.ServiceUnavailable, nonRetryable: false });
  });

  test('an invalid response is non-retryable InvalidResponse', () => {
    const error = ResearchApiError.invalidResponse({ ...target, status: 200, detail: 'body is not JSON' });
    expect(failureFromApiError(error)).toMatchObject({ type: FailureType.InvalidResponse, nonRetryable: true });
  });

  test('a request refused before sending is non-retryable InvalidRequest', () => {
    const error = ResearchApiError.invalidRequest({ ...target, error: { issues: [{ path: ['query'], message: 'is required' }] } });
    expect(failureFromApiError(error)).toMatchObject({ type: FailureType.InvalidRequest, nonRetryable: true });
  });

  test('state-change calls read 400/409/422 as Refused', () => {
    for (const status of STATE_REFUSAL_STATUSES) {
      expect(classifyApiError(httpError(status), { refusedStatuses: STATE_REFUSAL_STATUSES }).type).toBe(FailureType.Refused);
    }
  });

  test('the failure never carries the API key, even when the service echoes it', () => {
    const error = ResearchApiError.fromResponse({ ...target, status: 401, bodyText: `{"success":false,"error":"bad key ${API_KEY}"}`, secrets: [API_KEY] });
    const failure = failureFromApiError(error);
    expect(JSON.stringify({ message: failure.message, details: failure.details })).not.toContain(API_KEY);
  });
});

describe('rethrowAsFailure', () => {
  test('maps a ResearchApiError and passes other errors through unchanged', () => {
    expect(thrown(() => rethrowAsFailure(httpError(404)))).toMatchObject({ type: FailureType.NotFound });
    const plain = new RangeError('boom');
    expect(thrown(() => rethrowAsFailure(plain))).toBe(plain);
  });

  test('an activity cancellation propagates as cancellation, not as a mapped failure', async () => {
    const env = new MockActivityEnvironment({}, { logger: redactingTestLogger('error') });
    env.cancel();
    const result = env.run(async () => rethrowAsFailure(ResearchApiError.fromNetworkError(new Error('aborted'), target)));
    await expect(result).rejects.toBeInstanceOf(CancelledFailure);
  });
});
