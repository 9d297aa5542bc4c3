import { inspect } from 'node:util';
import { z } from 'zod';
import { RETRYABLE_STATUSES, ResearchApiError, issuesFrom, parseRetryAfter, redact } from '../../src/api/errors';

const target = { method: 'POST', path: '/v1/deepresearch/tasks' };
const apiKey = 'rk_live_0123456789abcdef';
const now = Date.parse('2025-01-01T00:00:00Z');

function fromBody(status: number, body: unknown, extra: Partial<Parameters<typeof ResearchApiError.fromResponse>[0]> = {}) {
  const bodyText = typeof body === 'string' ? body : JSON.stringify(body);
  return ResearchApiError.fromResponse({ ...target, status, bodyText, now, ...extra });
}

describe('status classification', () => {
  const cases: Array<[number, boolean, string]> = [
    [400, false, 'invalid request parameters'],
    [401, false, 'invalid API key'],
    [402, false, 'insufficient credits, please top up your account'],
    [403, false, 'API key does not have inference permission'],
    [404, false, 'task not found'],
    [408, true, 'request timeout'],
    [429, true, 'rate limited'],
    [500, true, 'internal server error, try again later'],
    [502, true, 'bad gateway'],
    [503, true, 'service unavailable'],
    [504, true, 'gateway timeout'],
  ];

  test.each(cases)('%i is retryable=%s and names the call and the service text', (status, retryable, text) => {
    const error = fromBody(status, { success: false, error: text });
    expect(error).toBeInstanceOf(ResearchApiError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ kind: 'http', status, retryable, serviceMessage: text });
    expect(error.message).toBe(`POST /v1/deepresearch/tasks failed with ${status}: ${text}`);
  });

  test('exports exactly the transient statuses', () => {
    expect([...RETRYABLE_STATUSES].sort()).toEqual([408, 429, 500, 502, 503, 504]);
  });

  test('other 4xx statuses are not retryable', () => {
    expect(fromBody(409, '').retryable).toBe(false);
    expect(fromBody(422, '').retryable).toBe(false);
  });

  test('helpers flag credits, rate limits and unknown resources', () => {
    expect(fromBody(402, '')).toMatchObject({ isCreditsExhausted: true, isRateLimited: false, isNotFound: false });
    expect(fromBody(429, '')).toMatchObject({ isCreditsExhausted: false, isRateLimited: true, isNotFound: false });
    expect(fromBody(404, '')).toMatchObject({ isCreditsExhausted: false, isRateLimited: false, isNotFound: true });
  });
});

describe('error bodies', () => {
  test('reads the workflow form {error, message} as code plus message', () => {
    const error = fromBody(404, { error: 'workflow_not_found', message: 'No workflow matches slug "x"' });
    expect(error).toMatchObject({ code: 'workflow_not_found', serviceMessage: 'No workflow matches slug "x"' });
    expect(error.message).toBe('POST /v1/deepresearch/tasks failed with 404: workflow_not_found: No workflow matches slug "x"');
  });

  test('reads {success:false, error} without inventing a code', () => {
    const error = fromBody(401, { success: false, error: 'invalid API key' });
    expect(error.code).toBeUndefined();
    expect(error.serviceMessage).toBe('invalid API key');
  });

  test.each([
    ['{detail}', { detail: 'Not authenticated' }, 'Not authenticated'],
    ['{detail:[...]} validation lists', { detail: [{ loc: ['body', 'query'], msg: 'field required' }] }, 'field required'],
    ['{message}', { message: 'Forbidden' }, 'Forbidden'],
    ['{error:{message}}', { error: { message: 'nested text', code: 'nested_code' } }, 'nested text'],
    ['a JSON string', 'quoted text', 'quoted text'],
  ])('tolerates %s', (_name, body, text) => {
    const bodyText = JSON.stringify(body);
    expect(ResearchApiError.fromResponse({ ...target, status: 400, bodyText }).serviceMessage).toBe(text);
  });

  test('keeps plain-text bodies, trimmed', () => {
    expect(fromBody(503, '  upstream connect error  \n').serviceMessage).toBe('upstream connect error');
  });

  test('reduces HTML error pages to their title', () => {
    const html = '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>';
    const error = fromBody(502, html);
    expect(error.serviceMessage).toBe('502 Bad Gateway');
    expect(error.message).not.toContain('<');
  });

  test('falls back to the status text for an empty body', () => {
    const error = fromBody(500, '');
    expect(error.serviceMessage).toBeUndefined();
    expect(error.message).toBe('POST /v1/deepresearch/tasks failed with 500: Internal Server Error');
  });

  test('clips very long bodies', () => {
    expect(fromBody(500, 'x'.repeat(10_000)).serviceMessage!.length).toBeLessThanOrEqual(501);
  });

  test('drops the query string from the path, since it can carry asset tokens', () => {
    const error = ResearchApiError.fromResponse({ method: 'get', path: '/v1/deepresearch/tasks/t1/assets/a1?token=secret', status: 404 });
    expect(error.path).toBe('/v1/deepresearch/tasks/t1/assets/a1');
    expect(error.method).toBe('GET');
    expect(error.message).not.toContain('secret');
  });
});

describe('request ids', () => {
  test.each(['x-request-id', 'X-Amzn-RequestId', 'request-id'])('reads the %s header', (name) => {
    expect(fromBody(500, '', { headers: { [name]: 'req-1' } }).requestId).toBe('req-1');
  });

  test('reads a fetch Headers object', () => {
    expect(fromBody(500, '', { headers: new Headers({ 'x-request-id': 'req-2' }) }).requestId).toBe('req-2');
  });

  test.each([['request_id'], ['tx_id']])('falls back to a %s body field', (field) => {
    expect(fromBody(500, { success: false, error: 'boom', [field]: 'body-id' }).requestId).toBe('body-id');
  });
});

describe('Retry-After', () => {
  test('reads delta-seconds', () => {
    expect(fromBody(429, '', { headers: { 'retry-after': '7' } }).retryAfterMs).toBe(7000);
  });

  test('reads an HTTP date relative to now', () => {
    const headers = { 'Retry-After': new Date(now + 30_000).toUTCString() };
    expect(fromBody(503, '', { headers }).retryAfterMs).toBe(30_000);
  });

  test.each(['soon', '-5', '', '1e3', 'Wed, 99 Foo 2025'])('ignores junk value %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });

  test('ignores a date in the past', () => {
    expect(parseRetryAfter(new Date(now - 1000).toUTCString(), now)).toBeUndefined();
  });

  test('is absent when the header is', () => {
    expect(fromBody(429, '').retryAfterMs).toBeUndefined();
  });
});

describe('network failures', () => {
  test('a connection reset is a retryable network error that keeps the transport code', () => {
    const cause = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const error = ResearchApiError.fromNetworkError(cause, target);
    expect(error).toMatchObject({ kind: 'network', retryable: true, causeCode: 'ECONNRESET' });
    expect(error.status).toBeUndefined();
    expect(error.message).toBe('POST /v1/deepresearch/tasks failed with a network error: read ECONNRESET');
  });

  test('reads the undici error wrapped by fetch', () => {
    const inner = Object.assign(new Error('Connect Timeout Error'), { name: 'ConnectTimeoutError', code: 'UND_ERR_CONNECT_TIMEOUT' });
    const error = ResearchApiError.fromNetworkError(new TypeError('fetch failed', { cause: inner }), target);
    expect(error).toMatchObject({ kind: 'timeout', retryable: true, causeCode: 'UND_ERR_CONNECT_TIMEOUT' });
  });

  test('an AbortSignal.timeout abort is a timeout', () => {
    const error = ResearchApiError.fromNetworkError(new DOMException('The operation was aborted due to timeout', 'TimeoutError'), target);
    expect(error.kind).toBe('timeout');
    expect(error.message).toMatch(/^POST \/v1\/deepresearch\/tasks timed out/);
  });

  test('keeps a scrubbed copy of the cause, not the cause object', () => {
    const cause = Object.assign(new Error(`socket closed for ${apiKey}`), { requestHeaders: { 'x-api-key': apiKey } });
    const error = ResearchApiError.fromNetworkError(cause, { ...target, secrets: [apiKey] });
    expect(error.cause).not.toBe(cause);
    expect(inspect(error, { depth: 10 })).not.toContain(apiKey);
  });
});

describe('validation failures', () => {
  const schema = z.object({ mode: z.enum(['fast', 'standard', 'heavy', 'max']), tasks: z.array(z.object({ query: z.string() })) });
  const failure = schema.safeParse({ mode: 'turbo', tasks: [{ query: 1 }] });
  if (failure.success) throw new Error('fixture must fail');

  test('an invalid response names each field path and rule and is not retryable', () => {
    const error = ResearchApiError.invalidResponse({ method: 'GET', path: '/v1/deepresearch/tasks/t1/status', status: 200, error: failure.error });
    expect(error).toMatchObject({ kind: 'invalid_response', retryable: false, status: 200 });
    expect(error.issues).toEqual([
      { path: 'mode', message: 'Invalid option: expected one of "fast"|"standard"|"heavy"|"max"' },
      { path: 'tasks[0].query', message: 'Invalid input: expected string, received number' },
    ]);
    expect(error.message).toContain('mode: Invalid option: expected one of "fast"|"standard"|"heavy"|"max"');
  });

  test('an invalid request has no status and is not retryable', () => {
    const error = ResearchApiError.invalidRequest({ ...target, error: failure.error });
    expect(error).toMatchObject({ kind: 'invalid_request', retryable: false });
    expect(error.status).toBeUndefined();
    expect(error.message).toMatch(/^POST \/v1\/deepresearch\/tasks request is invalid: mode: Invalid option/);
  });

  test('a root-level issue is labelled (root)', () => {
    expect(issuesFrom({ issues: [{ path: [], message: 'Invalid input' }] })).toEqual([{ path: '(root)', message: 'Invalid input' }]);
  });
});

describe('secrets', () => {
  const echoed = ResearchApiError.fromResponse({
    ...target,
    status: 401,
    bodyText: JSON.stringify({ success: false, error: `invalid API key ${apiKey}` }),
    headers: { 'x-request-id': 'req-9' },
    secrets: [apiKey],
  });

  test.each([
    ['message', () => echoed.message],
    ['toString()', () => echoed.toString()],
    ['JSON.stringify', () => JSON.stringify(echoed)],
    ['util.inspect', () => inspect(echoed, { depth: 10, showHidden: true })],
  ])('an echoed key never appears in %s', (_name, render) => {
    const text = render();
    expect(text).not.toContain(apiKey);
    expect(text).toContain('[REDACTED]');
  });

  test('redact scrubs every occurrence of every secret and ignores empty ones', () => {
    expect(redact('a KEY b KEY c other', ['KEY', '', 'other'])).toBe('a [REDACTED] b [REDACTED] c [REDACTED]');
  });

  test('toJSON is a plain object with the classification', () => {
    expect(JSON.parse(JSON.stringify(echoed))).toEqual({
      name: 'ResearchApiError',
      message: 'POST /v1/deepresearch/tasks failed with 401: invalid API key [REDACTED]',
      kind: 'http',
      status: 401,
      serviceMessage: 'invalid API key [REDACTED]',
      requestId: 'req-9',
      retryable: false,
      method: 'POST',
      path: '/v1/deepresearch/tasks',
    });
  });
});
