import { FailureType } from '../../src/domain/failures';
import { networkError, useTestbed, type Setup } from './helpers';

const SEARCH = { path: '/v1/search', method: 'POST' } as const;
const input = { key: 'acme', prefix: 'pipelines/p/r', request: { kind: 'search' as const, request: { query: 'Acme headcount' } } };
const results = {
  success: true,
  results: [],
  results_by_source: { web: 0, proprietary: 0 },
  tx_id: 'tx_1',
  query: 'Acme headcount',
  total_deduction_dollars: 0.01,
  total_characters: 0,
};

const testbed = useTestbed();
let t: Setup;
beforeEach(() => {
  t = testbed();
});

describe('runPipelineItem: paid calls without an idempotency key', () => {
  test.each([
    ['a reset connection', (s: Setup) => s.service.intercept(SEARCH).replyWithError(networkError('ECONNRESET', 'socket hang up'))],
    ['a time-out', (s: Setup) => s.service.intercept(SEARCH).reply(200, results).delay(1_000)],
  ])('%s after sending may have been charged: PossiblyCharged, not retried by the activity', async (_name, arrange) => {
    arrange(t);
    await expect(t.env().call(t.activities.runPipelineItem, input)).rejects.toMatchObject({
      type: FailureType.PossiblyCharged,
      nonRetryable: true,
      message: expect.stringContaining('may have been charged'),
    });
  });

  test.each([
    ['a refused connection', (s: Setup) => s.service.intercept(SEARCH).replyWithError(networkError('ECONNREFUSED')), FailureType.ServiceUnavailable],
    ['a 503', (s: Setup) => s.service.intercept(SEARCH).reply(503, { success: false, error: 'busy' }), FailureType.ServiceUnavailable],
    ['a 429', (s: Setup) => s.service.intercept(SEARCH).reply(429, { success: false, error: 'slow down' }), FailureType.RateLimited],
  ])('%s was answered before any charge: retryable as usual', async (_name, arrange, type) => {
    arrange(t);
    await expect(t.env().call(t.activities.runPipelineItem, input)).rejects.toMatchObject({ type, nonRetryable: false });
  });

  test('a result is stored with its cost', async () => {
    t.service.intercept(SEARCH).reply(200, results);
    await expect(t.env().call(t.activities.runPipelineItem, input)).resolves.toMatchObject({
      costUsd: 0.01,
      result: { key: 'pipelines/p/r/results/acme.json' },
    });
  });
});
