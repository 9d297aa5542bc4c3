import { randomUUID } from 'node:crypto';
import { differingParams, paramsFingerprint } from '../../src/runs/start';
import { describeScenarios } from '../support/scenario-env';
import { pipelinesFolder, scenarioIntake } from '../support/scenario-intake';
import { makeWorld, researchSetup, type ResearchWorld } from '../scenarios/world';

const TOKEN = 'app-token-0123456789abcdef';
const SECRET_VALUE = 'tok-SECRET-4f1c9a';

describe('parameter fingerprints', () => {
  it('tell a repeat from a start with other values, naming the parameters that differ', () => {
    const before = paramsFingerprint({ region: 'EU', limit: 3 });
    expect(differingParams(before, paramsFingerprint({ limit: 3, region: 'EU' }))).toEqual([]);
    expect(differingParams(before, paramsFingerprint({ region: 'US', limit: 3 }))).toEqual(['region']);
    expect(differingParams(before, paramsFingerprint({ region: 'EU' }))).toEqual(['limit']);
    expect(differingParams(before, paramsFingerprint({ region: 'EU', limit: '3' }))).toEqual(['limit']);
    expect(JSON.stringify(paramsFingerprint({ token: SECRET_VALUE }))).not.toContain(SECRET_VALUE);
  });
});

// The run key is the run's identity: a second start with other parameters is not the same event.
describeScenarios('intake: an Idempotency-Key reused with other parameters', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('answers 409 naming the parameters that differ, without their values, and starts nothing', async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const name = `keyed-${randomUUID().slice(0, 8)}`;
    const pipelinesDir = await pipelinesFolder({
      [name]: `
name: ${name}
parameters:
  region: { type: string, default: EU }
  token: { type: string, default: none }
input:
  items: [Acme]
  key: "{{ item | slug }}"
step:
  answer:
    query: "Headcount of {{ item }} in {{ params.region }}"
start_rate_per_second: 50
budget_usd: 5
`,
    });
    const intake = await scenarioIntake(env, world, { tokens: [TOKEN], pipelinesDir });
    try {
      const start = (params: Record<string, string>) =>
        intake.app.inject({
          method: 'POST',
          url: `/pipelines/${name}/runs`,
          headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': 'order-7' },
          payload: { params },
        });
      expect((await start({ region: 'EU', token: SECRET_VALUE })).statusCode).toBe(201);
      expect((await start({ region: 'EU', token: SECRET_VALUE })).statusCode).toBe(200);
      const conflict = await start({ region: 'US', token: 'another-value' });
      expect(conflict.statusCode).toBe(409);
      expect(conflict.json()).toMatchObject({
        code: 'run_key_conflict',
        error: expect.stringMatching(/"region", "token"/),
        issues: [{ path: 'body.params.region' }, { path: 'body.params.token' }],
      });
      expect(conflict.body).not.toContain(SECRET_VALUE);
      expect(conflict.body).not.toContain('another-value');
      // Once the run has ended its key is still its own.
      await env.getHandle(`pipeline-run/${name}/order-7`).result();
      expect((await start({ region: 'US', token: SECRET_VALUE })).statusCode).toBe(409);
      expect((await start({ region: 'EU', token: SECRET_VALUE })).statusCode).toBe(200);
      expect(world.emulator.stats.snapshot().requests.answer?.['200']).toBe(1);
    } finally {
      await intake.app.close();
    }
  });
});
