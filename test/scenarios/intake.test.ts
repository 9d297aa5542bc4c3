import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { signWebhook, webhookRouteToken } from '../../src/api';
import { pipelineRunStateQuery, researchTaskStateQuery } from '../../src/workflows/definitions';
import { pipelineItemWorkflowId } from '../../src/domain/ids';
import type { PipelineRunResult } from '../../src/domain/pipeline-types';
import type { ResearchBatchResult } from '../../src/workflows/types';
import { planReviewedAcme } from '../support/pipeline-runs';
import { describeScenarios } from '../support/scenario-env';
import { pipelinesFolder, scenarioIntake } from '../support/scenario-intake';
import { pipelineInput } from './pipeline-world';
import { makeWorld, researchSetup, type ResearchWorld } from './world';
import type { ResearchTaskResult } from '../../src/domain/research-types';
import { endedCanceled } from '../support/cancelled';

const TOKEN = 'app-token-0123456789abcdef';

/** Requests the emulator answered on `GET /deepresearch/tasks/{id}` and `.../status` (every status call, the final read included). */
function statusCalls(world: ResearchWorld): number {
  const { requests } = world.emulator.stats.snapshot();
  return ['deepresearch.get', 'deepresearch.status'].reduce((sum, route) => sum + Object.values(requests[route] ?? {}).reduce((a, b) => a + b, 0), 0);
}

const answers = (name: string) => `
name: ${name}
input:
  items: [Acme, Globex]
  key: "{{ item | slug }}"
step:
  answer:
    query: "Headcount of {{ item }}"
concurrency: 2
start_rate_per_second: 50
budget_usd: 5
`;

describeScenarios('rp intake on the real server', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  async function post(url: string, body: string, headers: Record<string, string>) {
    const response = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
    return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
  }

  it("finishes a task on the service's webhook with at most 2 status calls; the URL token and secret stay out of history", async () => {
    const env = getEnv();
    world = await makeWorld(env, { webhooks: true });
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: `research-task/intake/r1/${randomUUID().slice(0, 8)}`,
      args: [{ request: { query: 'Heat pump adoption in Nordic countries', mode: 'fast' }, polling: world.polling }],
    });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', webhooks: 1 });
    expect(world.intake).toMatchObject({ verified: 1, rejected: 0 });
    // The route pattern must match something, or the bound below would hold for nothing.
    expect(statusCalls(world)).toBeGreaterThanOrEqual(1);
    // The webhook's one read both confirms the end and fetches the outputs; no read follows the create.
    expect(statusCalls(world)).toBeLessThanOrEqual(2);
    process.stderr.write(`webhook-driven task: ${statusCalls(world)} status calls, ${result.polls} polls\n`);
    const token = webhookRouteToken(world.intakeKey, handle.workflowId);
    const secret = (await world.secrets.get(result.deepresearchId))!;
    expect(await handle.payloadsContain('Heat pump adoption')).toBe(true);
    expect(await handle.payloadsContain(token)).toBe(false);
    expect(await handle.payloadsContain(secret)).toBe(false);
    expect(await handle.payloadsContain(world.intakeKey)).toBe(false);
  });

  it('follows a service batch to completion on its webhook through the intake', async () => {
    const env = getEnv();
    world = await makeWorld(env, { webhooks: true });
    const tasks = Array.from({ length: 3 }, (_, index) => ({ id: `t${index + 1}`, query: `Topic ${index + 1}` }));
    const handle = await env.start<ResearchBatchResult>('researchBatchWorkflow', {
      workflowId: `research-batch/intake/${randomUUID().slice(0, 8)}`,
      args: [{ batch: { mode: 'fast' }, tasks, polling: world.polling }],
    });
    const result = await handle.result();
    expect(result.counts).toMatchObject({ completed: 3 });
    expect(world.intake).toMatchObject({ verified: 1, rejected: 0 });
    expect(await handle.payloadsContain(webhookRouteToken(world.intakeKey, handle.workflowId))).toBe(false);
  });

  it('signals once for a duplicate delivery, answers 404 for an unknown workflow and 200 for a closed one', async () => {
    const env = getEnv();
    world = await makeWorld(env, { webhooks: true });
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: `research-task/intake/dup/${randomUUID().slice(0, 8)}`,
      args: [{ request: { query: 'Battery recycling capacity', mode: 'standard' }, polling: world.polling }],
    });
    await env.waitUntil(async () => (await handle.query(researchTaskStateQuery)).deepresearchId !== undefined, { description: 'the task to be created' });
    const { deepresearchId } = await handle.query(researchTaskStateQuery);
    const secret = (await world.secrets.get(deepresearchId!))!;
    const body = JSON.stringify({ event: 'task.running', deepresearch_id: deepresearchId, status: 'running' });
    const signed = signWebhook({ secret, body, timestamp: Math.floor(world.emulator.clock.now() / 1000) });
    const url = (workflowId: string) =>
      `${world!.intakeUrl}/webhooks/research/${encodeURIComponent(workflowId)}/${webhookRouteToken(world!.intakeKey, workflowId)}`;
    expect(await post(url(handle.workflowId), body, signed.headers)).toEqual({ status: 200, body: { delivered: true, workflowId: handle.workflowId } });
    expect(await post(url(handle.workflowId), body, signed.headers)).toEqual({ status: 200, body: { delivered: false, workflowId: handle.workflowId } });
    // The service's retry of the same delivery is signed afresh (a new timestamp): its delivery id still names it.
    const withId = JSON.stringify({ event: 'task.running', deepresearch_id: deepresearchId, status: 'running', delivery_id: 'whd_1' });
    expect(
      (await post(url(handle.workflowId), withId, signWebhook({ secret, body: withId, timestamp: Math.floor(world.emulator.clock.now() / 1000) }).headers))
        .body,
    ).toMatchObject({ delivered: true });
    expect(
      (await post(url(handle.workflowId), withId, signWebhook({ secret, body: withId, timestamp: Math.floor(world.emulator.clock.now() / 1000) + 7 }).headers))
        .body,
    ).toMatchObject({ delivered: false });
    await env.waitUntil(async () => (await handle.query(researchTaskStateQuery)).webhooks === 2, { description: 'one signal per delivery' });
    const unknown = await post(url('research-task/intake/none/x'), body, signed.headers);
    expect(unknown).toMatchObject({ status: 404, body: { code: 'workflow_not_found' } });
    await handle.cancel();
    await endedCanceled(handle);
    // The service's own completion webhook for the cancelled task may still come: a closed workflow answers 2xx, not a retry loop.
    const late = signWebhook({ secret, body, timestamp: Math.floor(world.emulator.clock.now() / 1000) });
    expect(await post(url(handle.workflowId), body, late.headers)).toEqual({ status: 200, body: { delivered: false, workflowId: handle.workflowId } });
    expect((await handle.query(researchTaskStateQuery)).webhooks).toBe(2);
    const ready = await request(`${world.intakeUrl}/readyz`);
    expect(ready.statusCode).toBe(200);
    await ready.body.dump();
  });

  it('starts a pipeline run once per Idempotency-Key (201, then 200), shows its progress and cancels it', async () => {
    const env = getEnv();
    world = await makeWorld(env, { webhooks: true, emulator: { defaultCreditsUsd: 100 } });
    const name = `events-${randomUUID().slice(0, 8)}`;
    const intake = await scenarioIntake(env, world, {
      tokens: [TOKEN],
      pipelinesDir: await pipelinesFolder({ [name]: answers(name) }),
      temporalUiUrl: 'http://localhost:8233',
      publicUrl: 'https://intake.example.com/',
    });
    try {
      const auth = { authorization: `Bearer ${TOKEN}` };
      // The Host header is the caller's to choose: it must never reach the answer's links.
      const start = () =>
        intake.app.inject({
          method: 'POST',
          url: `/pipelines/${name}/runs`,
          headers: { ...auth, 'idempotency-key': 'order-1001', host: 'attacker.example' },
          payload: { params: {} },
        });
      const first = await start();
      expect(first.statusCode).toBe(201);
      const workflowId = `pipeline-run/${name}/order-1001`;
      expect(first.json()).toEqual({
        workflowId,
        pipeline: name,
        runKey: 'order-1001',
        started: true,
        statusUrl: `https://intake.example.com/pipelines/${name}/runs/order-1001`,
        temporalUiUrl: `http://localhost:8233/namespaces/default/workflows/${encodeURIComponent(workflowId)}`,
      });
      expect(first.headers.location).toBe(first.json().statusUrl);
      const again = await start();
      expect(again.statusCode).toBe(200);
      expect(again.json()).toMatchObject({ workflowId, started: false });
      const result = await env.getHandle<PipelineRunResult>(workflowId).result();
      expect(result.counts).toMatchObject({ completed: 2 });
      const status = await intake.app.inject({ method: 'GET', url: `/pipelines/${name}/runs/order-1001`, headers: auth });
      expect(status.statusCode).toBe(200);
      expect(status.json()).toMatchObject({ pipeline: name, runKey: 'order-1001', phase: 'completed', counts: { completed: 2 } });
      // A closed run's key is taken for good: the same event later still starts nothing.
      expect((await start()).statusCode).toBe(200);
      const missing = await intake.app.inject({ method: 'GET', url: `/pipelines/${name}/runs/order-9999`, headers: auth });
      expect(missing.statusCode).toBe(404);
      const cancel = await intake.app.inject({ method: 'POST', url: `/pipelines/${name}/runs/order-9999/cancel`, headers: auth, payload: {} });
      expect(cancel.statusCode).toBe(404);
    } finally {
      await intake.app.close();
    }
  });

  it("answers an item's checkpoint through the intake and refuses an answer for another interaction (409)", async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 100 } });
    const input = await pipelineInput(planReviewedAcme('reviewed'), world, { runKey: 'hitl-1' });
    const run = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/reviewed/hitl-1', args: [input] });
    await env.waitUntil(async () => (await run.query(pipelineRunStateQuery)).waiting.checkpoint.length === 1, {
      timeoutMs: 3_600_000,
      description: 'the item at its plan review',
    });
    const item = env.getHandle(pipelineItemWorkflowId('reviewed', 'hitl-1', 'acme'));
    const interaction = (await item.query(researchTaskStateQuery)).interaction!;
    const intake = await scenarioIntake(env, { secrets: world.secrets, intakeKey: 'k'.repeat(32) }, { tokens: [TOKEN], pipelinesDir: 'pipelines' });
    try {
      const url = '/pipelines/reviewed/runs/hitl-1/items/acme/checkpoint';
      const headers = { authorization: `Bearer ${TOKEN}` };
      const wrong = await intake.app.inject({ method: 'POST', url, headers, payload: { interactionId: 'int_other', response: { approved: true } } });
      expect(wrong.statusCode).toBe(409);
      expect(wrong.json().error).toContain(`the current one is ${interaction.interaction_id}`);
      const right = await intake.app.inject({
        method: 'POST',
        url,
        headers,
        payload: { interactionId: interaction.interaction_id, response: { approved: true } },
      });
      expect(right.statusCode).toBe(200);
      expect(right.json()).toEqual({ accepted: true, interactionId: interaction.interaction_id });
      const cancel = await intake.app.inject({ method: 'POST', url: '/pipelines/reviewed/runs/hitl-1/cancel', headers, payload: {} });
      expect(cancel.statusCode).toBe(202);
      expect(cancel.json()).toEqual({ cancelRequested: 'pipeline-run/reviewed/hitl-1' });
      // The run ends Canceled; the intake's status route still shows what it did.
      await endedCanceled(run);
      const status = await intake.app.inject({ method: 'GET', url: '/pipelines/reviewed/runs/hitl-1', headers });
      expect(status.json()).toMatchObject({ phase: 'cancelled' });
    } finally {
      await intake.app.close();
    }
  });
});
