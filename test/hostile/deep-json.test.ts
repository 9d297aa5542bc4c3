import { intakeWith, TOKEN, unreachableTemporal } from '../intake/helpers';

describe('deeply nested JSON bodies', () => {
  const temporal = unreachableTemporal();
  afterAll(() => temporal.close());

  test.each([100_000, 10_000])('a checkpoint answer nested %i deep is a 400 naming the rule, and the intake stays up', async (depth) => {
    const { app } = await intakeWith(temporal.client, { bodyLimitBytes: 1024 * 1024 });
    const payload = `{"interactionId":"i1","response":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const response = await app.inject({
      method: 'POST',
      url: '/pipelines/p/runs/r1/items/a/checkpoint',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      payload,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'malformed_json', error: expect.stringContaining('nested deeper than 64') });
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    await app.close();
  });
});
