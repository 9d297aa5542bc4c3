import { Writable } from 'node:stream';
import { request as httpsRequest } from 'node:https';
import { generate } from 'selfsigned';
import { signWebhook } from '../../src/api';
import { buildIntake, maskedUrl } from '../../src/intake';
import { delivery, INTAKE_KEY, intakeWith, SECRET, TOKEN, unreachableTemporal, validateOpenApi } from './helpers';

// Every test here runs with Temporal down: bad input must be refused before anything reaches a workflow.
describe('intake HTTP routes while Temporal is down', () => {
  const temporal = unreachableTemporal();
  let intake: Awaited<ReturnType<typeof intakeWith>>;
  beforeAll(async () => {
    intake = await intakeWith(temporal.client);
  });
  afterAll(async () => {
    await intake.app.close();
    await temporal.close();
  });
  const auth = { authorization: `Bearer ${TOKEN}` };

  test('healthz answers while readyz says Temporal is unreachable (503)', async () => {
    expect((await intake.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await intake.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ code: 'temporal_unavailable' });
  });

  test('a verified webhook while Temporal is down gets 503, so the service retries', async () => {
    const hook = delivery('research-task/demo/r1/a');
    const response = await intake.app.inject({ method: 'POST', url: hook.url, headers: hook.headers, payload: hook.payload });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ code: 'temporal_unavailable' });
  });

  describe('webhooks: each bad delivery gets its status and a JSON reason', () => {
    const cases: Array<[string, () => { url: string; headers: Record<string, string>; payload: string }, number, string]> = [
      ['forged signature (another secret)', () => delivery('wf-1', undefined, { secret: 'b'.repeat(64) }), 401, 'webhook_mismatch'],
      [
        'tampered body',
        () => {
          const hook = delivery('wf-1');
          return { ...hook, payload: hook.payload.replace('completed"', 'failed"') };
        },
        401,
        'webhook_mismatch',
      ],
      [
        'stale (replayed a day later)',
        () => delivery('wf-1', undefined, { timestamp: Math.floor(Date.now() / 1000) - 86_400 }),
        401,
        'webhook_stale_timestamp',
      ],
      ['no signature headers', () => ({ ...delivery('wf-1'), headers: { 'content-type': 'application/json' } }), 401, 'webhook_missing'],
      [
        'malformed signature',
        () => {
          const hook = delivery('wf-1');
          return { ...hook, headers: { ...hook.headers, 'X-Webhook-Signature': 'sha256=zz' } };
        },
        401,
        'webhook_malformed_signature',
      ],
      ['the token of another workflow', () => ({ ...delivery('wf-1'), url: delivery('wf-2').url.replace('wf-2', 'wf-1') }), 403, 'webhook_route_token'],
      ['a task whose secret is not kept', () => delivery('wf-1', { deepresearch_id: 'tsk_unknown', status: 'completed' }), 401, 'webhook_unknown_secret'],
    ];
    test.each(cases)('%s', async (_name, make, status, code) => {
      const hook = make();
      const response = await intake.app.inject({ method: 'POST', url: hook.url, headers: hook.headers, payload: hook.payload });
      expect(response.statusCode).toBe(status);
      expect(response.json()).toMatchObject({ code, error: expect.stringContaining('webhook rejected') });
    });

    test('a malformed token in the URL is a schema error naming params.token', async () => {
      const response = await intake.app.inject({
        method: 'POST',
        url: '/webhooks/research/wf-1/short',
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().issues).toEqual([expect.objectContaining({ path: 'params.token', message: expect.stringContaining('43-character') })]);
    });

    test('a body without a task or batch id is a schema error naming the field', async () => {
      const hook = delivery('wf-1', { status: 'completed' });
      const response = await intake.app.inject({ method: 'POST', url: hook.url, headers: hook.headers, payload: hook.payload });
      expect(response.statusCode).toBe(400);
      expect(response.json().issues).toEqual([expect.objectContaining({ path: 'body.deepresearch_id', message: expect.stringContaining('batch_id') })]);
    });

    test('malformed JSON is 400, another content type 415, an oversized body 413', async () => {
      const hook = delivery('wf-1');
      const bad = await intake.app.inject({ method: 'POST', url: hook.url, headers: hook.headers, payload: '{"deepresearch_id": ' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ code: 'malformed_json' });
      const text = await intake.app.inject({
        method: 'POST',
        url: hook.url,
        headers: { ...hook.headers, 'content-type': 'text/plain' },
        payload: hook.payload,
      });
      expect(text.statusCode).toBe(415);
      expect(text.json()).toMatchObject({ code: 'unsupported_media_type', error: expect.stringContaining('application/json') });
      const small = await intakeWith(unreachableTemporal().client, { bodyLimitBytes: 2048 });
      const big = delivery('wf-1', { deepresearch_id: 'tsk_1', status: 'completed', padding: 'x'.repeat(4096) });
      const tooLarge = await small.app.inject({ method: 'POST', url: big.url, headers: big.headers, payload: big.payload });
      expect(tooLarge.statusCode).toBe(413);
      expect(tooLarge.json()).toMatchObject({ code: 'body_too_large' });
      await small.app.close();
    });

    test('rejections are counted by reason on /metrics', async () => {
      const metrics = await intake.app.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
      expect(metrics.body).toMatch(/intake_webhook_verifications_total\{outcome="rejected",reason="mismatch"\} 2/);
      expect(metrics.body).toMatch(/intake_webhook_verifications_total\{outcome="rejected",reason="stale_timestamp"\} 1/);
      expect(metrics.body).toMatch(/intake_webhook_verifications_total\{outcome="rejected",reason="route_token"\} 1/);
      // The two schema violations on the webhook route (a malformed token, a body without an id).
      expect(metrics.body).toMatch(/intake_webhook_verifications_total\{outcome="rejected",reason="bad_body"\} 2/);
    });
  });

  describe('app-event routes', () => {
    test('refuse a missing or wrong bearer token with 401', async () => {
      const none = await intake.app.inject({ method: 'GET', url: '/pipelines/quick-answers/runs/r1' });
      expect(none.statusCode).toBe(401);
      expect(none.json()).toMatchObject({ code: 'unauthorized', error: expect.stringContaining('Bearer') });
      const wrong = await intake.app.inject({ method: 'POST', url: '/pipelines/quick-answers/runs/r1/cancel', headers: { authorization: `Bearer ${TOKEN}x` } });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json()).toMatchObject({ error: 'the bearer token is not valid' });
    });

    test('an intake without tokens refuses every app event', async () => {
      const closed = await intakeWith(temporal.client, { tokens: [] });
      const response = await closed.app.inject({ method: 'GET', url: '/pipelines/quick-answers/runs/r1', headers: auth });
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toContain('INTAKE_TOKENS');
      await closed.app.close();
    });

    test('a start without Idempotency-Key, or with a bad one, names the header', async () => {
      const none = await intake.app.inject({ method: 'POST', url: '/pipelines/quick-answers/runs', headers: auth, payload: {} });
      expect(none.statusCode).toBe(400);
      expect(none.json().issues).toEqual([expect.objectContaining({ path: 'headers.idempotency-key' })]);
      const bad = await intake.app.inject({
        method: 'POST',
        url: '/pipelines/quick-answers/runs',
        headers: { ...auth, 'idempotency-key': 'has space' },
        payload: {},
      });
      expect(bad.json().issues[0].message).toContain('letters, digits');
    });

    test('parameters of the wrong type are named; unknown fields refused; unknown pipelines 404', async () => {
      const headers = { ...auth, 'idempotency-key': 'evt-1' };
      const typed = await intake.app.inject({ method: 'POST', url: '/pipelines/quick-answers/runs', headers, payload: { params: { depth: { deep: true } } } });
      // An object is a parameter value (for `type: object`): the definition's type refuses it, by name.
      expect(typed.statusCode).toBe(422);
      expect(typed.json().issues[0].path).toBe('body.params.depth');
      const extra = await intake.app.inject({ method: 'POST', url: '/pipelines/quick-answers/runs', headers, payload: { parameters: {} } });
      expect(extra.statusCode).toBe(400);
      expect(extra.json().issues[0].message).toMatch(/parameters/);
      const missing = await intake.app.inject({ method: 'POST', url: '/pipelines/no-such-pipeline/runs', headers, payload: {} });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toMatchObject({ code: 'pipeline_not_found' });
      const traversal = await intake.app.inject({ method: 'POST', url: '/pipelines/..%2Fpackage/runs', headers, payload: {} });
      expect(traversal.statusCode).toBe(400);
    });

    test('a checkpoint answer without interactionId names the field', async () => {
      const response = await intake.app.inject({
        method: 'POST',
        url: '/pipelines/p/runs/r1/items/a/checkpoint',
        headers: auth,
        payload: { response: { approved: true } },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().issues).toEqual([expect.objectContaining({ path: 'body.interactionId' })]);
    });

    test('a well-formed request while Temporal is down gets 503', async () => {
      const response = await intake.app.inject({ method: 'GET', url: '/pipelines/quick-answers/runs/r1', headers: auth });
      expect(response.statusCode).toBe(503);
    });
  });

  test('unknown routes are 404 JSON and never echo a webhook token', async () => {
    const response = await intake.app.inject({ method: 'GET', url: `/webhooks/research/wf-1/${'t'.repeat(43)}` });
    expect(response.statusCode).toBe(404);
    expect(response.body).not.toContain('t'.repeat(43));
  });

  test('the OpenAPI document is valid OpenAPI 3 and lists every route', async () => {
    const document = (await intake.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    }>();
    expect(document.openapi).toMatch(/^3\./);
    expect(validateOpenApi(document)).toEqual({ valid: true });
    const listed = Object.entries(document.paths)
      .flatMap(([route, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${route}`))
      .sort();
    expect(listed).toEqual([
      'GET /healthz',
      'GET /metrics',
      'GET /openapi.json',
      'GET /pipelines/{pipeline}/runs/{runKey}',
      'GET /pipelines/{pipeline}/runs/{runKey}/items',
      'GET /pipelines/{pipeline}/runs/{runKey}/items/{item}/files/{file}',
      'GET /pipelines/{pipeline}/runs/{runKey}/outputs',
      'GET /pipelines/{pipeline}/runs/{runKey}/outputs/{*}',
      'GET /readyz',
      'POST /pipelines/{pipeline}/runs',
      'POST /pipelines/{pipeline}/runs/{runKey}/cancel',
      'POST /pipelines/{pipeline}/runs/{runKey}/items/{item}/checkpoint',
      'POST /webhooks/research/{workflowId}/{token}',
    ]);
  });
});

describe('intake logging and TLS', () => {
  test('logs are JSON with the bearer token, the signature and the URL token redacted', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        lines.push(chunk.toString());
        callback();
      },
    });
    const temporal = unreachableTemporal();
    const intake = await intakeWith(temporal.client, { logger: { level: 'info', stream, redact: ['req.headers.authorization'] } });
    // The intake's own options, with the stream swapped: built the way `rp intake` builds it.
    const logged = await buildIntake({
      client: temporal.client,
      secrets: intake.secrets,
      intakeKey: INTAKE_KEY,
      tokens: [TOKEN],
      pipelinesDir: 'pipelines',
      taskQueue: 'q',
      namespace: 'default',
      logger: { ...(await import('../../src/intake')).intakeLoggerOptions, stream },
    });
    const hook = delivery('wf-1', undefined, { secret: 'c'.repeat(64) });
    await logged.app.inject({ method: 'POST', url: hook.url, headers: { ...hook.headers, authorization: `Bearer ${TOKEN}` }, payload: hook.payload });
    const text = lines.join('');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(hook.url.split('/').pop()!);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(hook.headers['X-Webhook-Signature'].slice(7));
    expect(text).not.toContain(SECRET);
    expect(maskedUrl('/webhooks/research/a%2Fb/tok?x=1')).toBe('/webhooks/research/a%2Fb/[redacted]?x=1');
    await Promise.all([intake.app.close(), logged.app.close()]);
    await temporal.close();
  });

  test('serves HTTPS with a given certificate and key', async () => {
    const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
      days: 1,
      keySize: 2048,
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    } as never);
    const temporal = unreachableTemporal();
    const intake = await intakeWith(temporal.client, { tls: { cert: pems.cert, key: pems.private } });
    const url = new URL(await intake.app.listen({ port: 0, host: '127.0.0.1' }));
    expect(url.protocol).toBe('https:');
    const body = await new Promise<string>((resolve, reject) => {
      httpsRequest({ host: '127.0.0.1', port: url.port, path: '/healthz', ca: pems.cert }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve(text));
      })
        .on('error', reject)
        .end();
    });
    expect(JSON.parse(body)).toEqual({ status: 'ok' });
    await intake.app.close();
    await temporal.close();
  });

  test('signWebhook and the intake agree on what a signature covers (raw bytes, not re-serialised JSON)', async () => {
    const temporal = unreachableTemporal();
    const intake = await intakeWith(temporal.client);
    // Same JSON value, different bytes: a signature over the compact form must not verify the spaced one.
    const compact = '{"deepresearch_id":"tsk_1","status":"completed"}';
    const signed = signWebhook({ secret: SECRET, body: compact });
    const hook = delivery('wf-1');
    const response = await intake.app.inject({
      method: 'POST',
      url: hook.url,
      headers: { 'content-type': 'application/json', ...signed.headers },
      payload: '{ "deepresearch_id": "tsk_1", "status": "completed" }',
    });
    expect(response.statusCode).toBe(401);
    await intake.app.close();
    await temporal.close();
  });
});
