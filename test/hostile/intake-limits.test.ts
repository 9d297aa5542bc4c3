import { delivery, intakeWith, unreachableTemporal } from '../intake/helpers';

describe('intake limits', () => {
  const temporal = unreachableTemporal();
  afterAll(() => temporal.close());

  test('a webhook for a workflow id of 300 characters reaches its route (no 414), and no answer echoes the token', async () => {
    const { app } = await intakeWith(temporal.client);
    const workflowId = `pipeline/${'long-pipeline-name-'.repeat(12)}/run/${'k'.repeat(60)}/item/0`;
    expect(workflowId.length).toBeGreaterThan(300);
    const signed = delivery(workflowId);
    const response = await app.inject({ method: 'POST', url: signed.url, headers: signed.headers, payload: signed.payload });
    expect(response.statusCode).not.toBe(414);
    expect(response.statusCode).toBe(503); // Temporal is stopped here: the delivery was verified and is to be retried.
    expect(response.body).not.toContain(signed.url.split('/').pop());
    await app.close();
  });

  test('a path too long for any workflow id is refused without echoing it', async () => {
    const { app } = await intakeWith(temporal.client);
    const token = 'T'.repeat(5_000);
    const response = await app.inject({
      method: 'POST',
      url: `/webhooks/research/wf-1/${token}`,
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
    expect(response.body).not.toContain('TTTTTTTT');
    await app.close();
  });

  test('requests and headers have deadlines, and connections are bounded', async () => {
    const { app } = await intakeWith(temporal.client);
    await app.ready();
    expect(app.server.requestTimeout).toBeGreaterThan(0);
    expect(app.server.requestTimeout).toBeLessThanOrEqual(30_000);
    expect(app.initialConfig.connectionTimeout).toBeGreaterThan(0);
    expect(app.server.headersTimeout).toBeLessThanOrEqual(10_000);
    expect(app.server.maxConnections).toBeGreaterThan(0);
    expect(app.server.maxConnections).toBeLessThan(100_000);
    await app.close();
  });
});
