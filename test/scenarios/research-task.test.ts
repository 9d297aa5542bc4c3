import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { describeScenarios, recordHistory } from '../support/scenario-env';
import { researchTaskStateQuery } from '../../src/workflows/definitions';
import { makeWorld, researchSetup, type ResearchWorld } from './world';
import { InMemoryWebhookSecretStore } from '../../src/activities';
import type { ResearchTaskResult } from '../../src/domain/research-types';

describeScenarios('researchTaskWorkflow: completion', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('completes a task by polling alone and stores its report outside history', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'poll-only',
      args: [{ request: { query: 'Grid-scale storage costs', mode: 'fast' }, context: { pipeline: 'demo', run: 'r1', item: 'a' }, polling: world.polling }],
    });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', mode: 'fast', webhooks: 0, cost: 0.1 });
    // Found by status reads alone: more than one (how many depends on the emulator's clock against the
    // poll delays, which a loaded machine shifts; the webhook test below compares the two ways).
    expect(result.polls).toBeGreaterThanOrEqual(2);
    const report = await readFile(fileURLToPath(result.outputs.report!.uri));
    expect(report.length).toBe(result.outputs.report!.bytes);
    expect(createHash('sha256').update(report).digest('hex')).toBe(result.outputs.report!.sha256);
    expect(report.toString()).toContain('#');
    expect(await handle.largestPayloadBytes()).toBeLessThan(report.length + 8_192);
    expect(await handle.searchAttributes()).toMatchObject({
      ResearchStatus: 'completed',
      ResearchMode: 'fast',
      ResearchPipeline: 'demo',
      DeepResearchId: result.deepresearchId,
      ResearchCostUsd: 0.1,
    });
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(1);
    await recordHistory(handle, 'task-poll-grid');
  });

  it('needs far fewer polls when a verified webhook announces completion', async () => {
    const env = getEnv();
    world = await makeWorld(env);
    const polledHandle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'polled',
      args: [{ request: { query: 'Solar module prices', mode: 'standard' }, polling: world.polling }],
    });
    const polled = await polledHandle.result();
    await world.close();
    world = await makeWorld(env, { webhooks: true });
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'hooked',
      args: [{ request: { query: 'Solar module prices', mode: 'standard' }, polling: world.polling }],
    });
    world.route(handle);
    const hooked = await handle.result();
    expect(hooked.status).toBe('completed');
    expect(world.intake.verified).toBe(1);
    expect(hooked.webhooks).toBe(1);
    expect(hooked.polls * 2).toBeLessThan(polled.polls);
    const state = await handle.query(researchTaskStateQuery);
    expect(state).toMatchObject({ status: 'completed', webhooks: 1 });
    // The webhook secret stays in the secret store: neither the result nor the state carries it.
    const secret = await world.secrets.get(hooked.deepresearchId);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify([hooked, state])).not.toContain(secret);
    // Nor does any payload in history; the API key neither. (The query is there, which shows the check looks.)
    expect(await handle.payloadsContain('Solar module prices')).toBe(true);
    expect(await handle.payloadsContain(secret!)).toBe(false);
    expect(await handle.payloadsContain(world.emulator.defaultApiKey)).toBe(false);
    await recordHistory(handle, 'task-webhook-store');
  });

  it('still sees a task whose webhook is lost, at the late fallback poll', async () => {
    const env = getEnv();
    // The intake keeps no secret for the task: it refuses every delivery, as if the webhook never came.
    world = await makeWorld(env, { webhooks: true, intakeSecrets: new InMemoryWebhookSecretStore() });
    const handle = await env.start<ResearchTaskResult>('researchTaskWorkflow', {
      workflowId: 'hook-lost',
      args: [{ request: { query: 'Offshore wind auctions', mode: 'fast' }, polling: world.polling }],
    });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', webhooks: 0 });
    expect(world.intake.rejected).toBeGreaterThanOrEqual(1);
    expect(result.outputs.report).toBeDefined();
    expect(world.emulator.stats.snapshot().tasksCreated).toBe(1);
  });
});
