import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { signWebhook, webhookRouteToken } from '../../src/api';
import { researchTaskStateQuery } from '../../src/workflows/definitions';
import { describeScenarios } from '../support/scenario-env';
import { pipelinesFolder, scenarioIntake } from '../support/scenario-intake';
import { makeWorld, researchSetup, type ResearchWorld } from '../scenarios/world';
import type { ResearchTaskResult } from '../../src/domain/research-types';
import { endedCanceled } from '../support/cancelled';

const TOKEN = 'app-token-0123456789abcdef';

describeScenarios('intake: what Temporal carries, and what Temporal refuses', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  async function intakeOn(client: Client, pipelinesDir?: string) {
    return scenarioIntake(getEnv(), world!, { client, tokens: [TOKEN], pipelinesDir: pipelinesDir ?? (await pipelinesFolder({})) });
  }

  it('signals a workflow once for a delivery that reaches two intakes, or one restarted, since Temporal drops the repeated request id', async () => {
    const env = getEnv();
    world = await makeWorld(env, { webhooks: true });
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: `research-task/intake/twice/${randomUUID().slice(0, 8)}`,
      args: [{ request: { query: 'Battery recycling capacity', mode: 'standard' }, polling: world.polling }],
    });
    await env.waitUntil(async () => (await handle.query(researchTaskStateQuery)).deepresearchId !== undefined, { description: 'the task to be created' });
    const { deepresearchId } = await handle.query(researchTaskStateQuery);
    const secret = (await world.secrets.get(deepresearchId!))!;
    const body = JSON.stringify({ event: 'task.running', deepresearch_id: deepresearchId, status: 'running', delivery_id: 'whd_twice' });
    const url = `/webhooks/research/${encodeURIComponent(handle.workflowId)}/${webhookRouteToken(world.intakeKey, handle.workflowId)}`;
    const deliver = async (intake: Awaited<ReturnType<typeof intakeOn>>, offset: number) =>
      intake.app.inject({
        method: 'POST',
        url,
        payload: body,
        headers: {
          'content-type': 'application/json',
          ...signWebhook({ secret, body, timestamp: Math.floor(world!.emulator.clock.now() / 1000) + offset }).headers,
        },
      });
    const first = await intakeOn(env.client);
    const second = await intakeOn(env.client);
    try {
      // Each intake has its own memory: neither knows the other took the delivery.
      expect((await deliver(first, 0)).statusCode).toBe(200);
      expect((await deliver(second, 3)).statusCode).toBe(200);
      await first.app.close();
      const restarted = await intakeOn(env.client);
      expect((await deliver(restarted, 5)).statusCode).toBe(200);
      await restarted.app.close();
    } finally {
      await first.app.close();
      await second.app.close();
    }
    const signals: string[] = [];
    for (const event of (await env.client.workflow.getHandle(handle.workflowId).fetchHistory()).events ?? []) {
      if (event.workflowExecutionSignaledEventAttributes) signals.push(event.workflowExecutionSignaledEventAttributes.signalName ?? '?');
    }
    expect(signals.filter((name) => name === 'webhookReceived')).toHaveLength(1);
    await handle.cancel();
    await endedCanceled(handle);
  });

  it('answers a request Temporal refuses for good 500 (not "try later"), and readiness names the missing namespace', async () => {
    const env = getEnv();
    world = await makeWorld(env, {});
    const dir = await pipelinesFolder({
      brief: 'name: brief\ninput:\n  items: [Acme]\n  key: "{{ item | slug }}"\nstep:\n  answer:\n    query: "Headcount of {{ item }}"\nbudget_usd: 5\n',
    });
    const elsewhere = new Client({ connection: env.client.connection, namespace: `no-such-namespace-${randomUUID().slice(0, 8)}` });
    const intake = await intakeOn(elsewhere, dir);
    try {
      const ready = await intake.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ code: 'temporal_not_ready', error: expect.stringMatching(/Temporal has no namespace "no-such-namespace-/) });
      const start = await intake.app.inject({
        method: 'POST',
        url: '/pipelines/brief/runs',
        headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': 'order-1' },
        payload: {},
      });
      expect(start.statusCode).toBe(500);
      expect(start.json()).toMatchObject({
        code: 'temporal_refused',
        error: expect.stringMatching(/Temporal refused the request \(namespace "no-such-namespace-[^"]+" not found\); see the intake log/),
      });
      expect(start.headers['retry-after']).toBeUndefined();
    } finally {
      await intake.app.close();
    }
    const good = await intakeOn(env.client, dir);
    try {
      expect((await good.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    } finally {
      await good.app.close();
    }
  });
});
