import { ANSWER_PRICE_USD } from '../../src/pipelines/estimate';
import { captureWorkerLogs } from './log-capture';
import { pipelineRunStateQuery } from '../../src/workflows/definitions';
import type { PipelineRunResult } from '../../src/domain/pipeline-types';
import { describeScenarios } from '../support/scenario-env';
import { companies, pipelineInput } from '../scenarios/pipeline-world';
import { makeWorld, replaceActivity, researchSetup, type ResearchWorld } from '../scenarios/world';
import { jsonlOutput, leakedSecrets, linesWithResults, payloadTextsOnQueue } from './run-checks';

// Before the scenarios connect: the Runtime (and so the worker's logger) is installed once per process.
const logs = captureWorkerLogs();

/** A key no real account has, easy to find if anything ever printed or recorded it. */
const FAKE_API_KEY = 'rp-fake-api-key-RELIABILITY-9c41e7d2b8';
const ITEMS = 24;
const PRICE_USD = 0.1;
const BUDGET_USD = 2.5;

const report = (title: string, figures: Record<string, unknown>) =>
  process.stdout.write(
    `\n[reliability] ${title}\n${Object.entries(figures)
      .map(([name, value]) => `  ${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join('\n')}\n`,
  );

describeScenarios('reliability: a pipeline run under injected faults', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it('creates no task twice, loses no result, accounts for every item and keeps secrets out of logs and history through 5xx, lost creates, timeouts, 429 bursts, webhook faults and a worker restart', async () => {
    const env = getEnv();
    logs.clear();
    world = await makeWorld(env, {
      webhooks: true,
      // Creates and polls time out at the client when the injected latency passes 200 ms.
      clientTimeoutMs: 200,
      emulator: {
        accounts: [{ key: FAKE_API_KEY, creditsUsd: 100 }],
        log: (line) => logs.lines.push(`emulator ${line}`),
        faults: {
          'deepresearch.create': { errorRate: 0.2, dropAfterProcessingRate: 0.25, latencyMs: [20, 230], rateLimitBurst: { every: 9, count: 2 } },
          'deepresearch.status': { errorRate: 0.1, latencyMs: [0, 230], rateLimitBurst: { every: 12, count: 3 } },
          'deepresearch.list': { errorRate: 0.05 },
        },
        research: { webhooks: { loss: 0.25, duplicate: 0.6, reorder: true, reorderWindow: 3, reorderHoldMs: 20_000 } },
      },
    });
    const secrets = new Map<string, string>([['API key', FAKE_API_KEY]]);
    const put = world.secrets.put.bind(world.secrets);
    world.secrets.put = async (id, secret) => {
      secrets.set(`webhook secret of ${id}`, secret);
      await put(id, secret);
    };
    let inFlight = 0;
    const callFailures: Record<string, number> = {};
    for (const name of ['createResearchTask', 'getResearchTask'] as const) {
      replaceActivity(
        name,
        (original) =>
          (async (input: never) => {
            inFlight++;
            try {
              return await (original as (value: never) => Promise<unknown>)(input);
            } catch (error) {
              const kind = error instanceof Error && /timed out/.test(error.message) ? 'timed out' : ((error as { type?: string }).type ?? 'other');
              callFailures[kind] = (callFailures[kind] ?? 0) + 1;
              throw error;
            } finally {
              inFlight--;
            }
          }) as typeof original,
      );
    }

    const input = await pipelineInput(
      `
name: reliability
input:
  items:
${companies(ITEMS)}
  key: "{{ item.domain | slug }}"
step:
  deepresearch:
    query: "Profile {{ item.name }} ({{ item.domain }})"
    mode: fast
concurrency: 8
start_rate_per_second: 50
budget_usd: ${BUDGET_USD}
retries: 2
`,
      world,
      { runKey: 'faults' },
    );
    const started = Date.now();
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/reliability/faults', args: [input] });

    // Stop the worker while its activities are in flight, a third of the way in, and start another.
    await env.waitUntil(async () => (await handle.query(pipelineRunStateQuery)).counts.completed >= ITEMS / 3 && inFlight > 0, {
      timeoutMs: 3_600_000,
      description: 'a third of the items done with calls in flight',
    });
    const inFlightAtStop = inFlight;
    const restartAt = (Date.now() - started) / 1000;
    await env.restartWorker();
    const restartedAt = (Date.now() - started) / 1000;

    const result = await handle.result();
    const seconds = (Date.now() - started) / 1000;
    const stats = world.emulator.stats.snapshot();
    const createdPerKey = Object.values(stats.tasksCreatedByMetadata);
    const lines = await jsonlOutput(result);
    // Visibility may lag the closes by a moment: scan once the run and every item's workflow are listed.
    const listed = `TaskQueue = "${env.taskQueue}"`;
    await env.waitUntil(async () => (await env.client.workflow.count(listed)).count >= ITEMS + 1, { description: 'the run and its children to be listed' });
    const { executions, texts } = await payloadTextsOnQueue(env.client, env.taskQueue);
    const leaks = leakedSecrets([...logs.lines, ...texts], secrets);
    report('deepresearch pipeline under faults', {
      items: ITEMS,
      seconds: seconds.toFixed(1),
      workerRestart: `stopped at ${restartAt.toFixed(1)} s, new worker running at ${restartedAt.toFixed(1)} s`,
      counts: result.counts,
      spentUsd: result.ledger.spentUsd,
      chargedUsd: stats.chargedUsd,
      budgetUsd: BUDGET_USD,
      tasksCreated: stats.tasksCreated,
      mostCreatesPerRequestKey: Math.max(...createdPerKey),
      injectedFaults: stats.injectedFaults,
      droppedConnections: stats.droppedConnections,
      webhooks: stats.webhooks,
      relayed: world.intake,
      failedCallsByKind: callFailures,
      activitiesInFlightAtRestart: inFlightAtStop,
      executionsScanned: executions,
      logLinesScanned: logs.lines.length,
      secretsChecked: secrets.size,
      leaks,
    });

    // The faults did fire.
    expect(stats.droppedConnections['deepresearch.create']).toBeGreaterThan(0);
    expect(stats.injectedFaults['deepresearch.create']).toMatchObject({
      error: expect.any(Number),
      rateLimitBurst: expect.any(Number),
      latency: expect.any(Number),
    });
    expect(callFailures['timed out']).toBeGreaterThan(0);
    expect(stats.injectedFaults['deepresearch.status']).toMatchObject({ error: expect.any(Number), rateLimitBurst: expect.any(Number) });
    expect(stats.webhooks.dropped).toBeGreaterThan(0);
    expect(stats.webhooks.duplicated).toBeGreaterThan(0);
    expect(inFlightAtStop).toBeGreaterThan(0);
    // Zero tasks created twice: one task per request key, one request key per item.
    expect(createdPerKey).toHaveLength(ITEMS);
    expect(createdPerKey.every((count) => count === 1)).toBe(true);
    expect(stats.tasksCreated).toBe(ITEMS);
    // Every item accounted for, and every result in the output.
    expect(result.counts.completed + result.counts.failed).toBe(ITEMS);
    expect(result.counts).toMatchObject({ read: ITEMS, completed: ITEMS, failed: 0 });
    expect(new Set(lines.map((line) => line.key)).size).toBe(ITEMS);
    expect(await linesWithResults(lines)).toHaveLength(ITEMS);
    // The budget is never passed by more than one task's price, by the run's ledger or by the service's charges.
    expect(result.ledger.spentUsd).toBeLessThanOrEqual(BUDGET_USD + PRICE_USD + 1e-9);
    expect(stats.chargedUsd).toBeLessThanOrEqual(BUDGET_USD + PRICE_USD + 1e-9);
    expect(stats.chargedUsd).toBeCloseTo(result.ledger.spentUsd, 6);
    // No API key or webhook secret in any log line or any recorded payload (the scan does read them: the queries are there).
    expect(texts.some((text) => text.includes('Profile Company 7 (company-7.example)'))).toBe(true);
    expect(executions).toBeGreaterThanOrEqual(ITEMS + 1);
    expect(secrets.size).toBeGreaterThan(ITEMS / 4);
    expect(leaks).toEqual([]);
  });

  it('runs every Answer item to a stored result through 5xx, answers lost after they were charged, timeouts, 429 bursts and a worker restart, within budget plus one answer', async () => {
    const env = getEnv();
    logs.clear();
    const items = 20;
    const budgetUsd = 5;
    world = await makeWorld(env, {
      clientTimeoutMs: 500,
      emulator: {
        accounts: [{ key: FAKE_API_KEY, creditsUsd: 100 }],
        streamDelayMs: 0,
        log: (line) => logs.lines.push(`emulator ${line}`),
        faults: { answer: { errorRate: 0.15, dropAfterProcessingRate: 0.15, latencyMs: [0, 600], rateLimitBurst: { every: 7, count: 1 } } },
      },
    });
    let inFlight = 0;
    let timedOut = 0;
    replaceActivity('runPipelineItem', (original) => async (input: Parameters<typeof original>[0]) => {
      inFlight++;
      try {
        return await original(input);
      } catch (error) {
        if (error instanceof Error && /timed out/.test(error.message)) timedOut++;
        throw error;
      } finally {
        inFlight--;
      }
    });
    const input = await pipelineInput(
      `
name: reliability-answers
input:
  items:
${companies(items)}
  key: "{{ item.domain | slug }}"
step:
  answer:
    query: "Headcount of {{ item.name }} ({{ item.domain }})"
    data_max_price: 0.05
concurrency: 5
start_rate_per_second: 50
budget_usd: ${budgetUsd}
retries: 8
`,
      world,
      { runKey: 'faults' },
    );
    const started = Date.now();
    const handle = await env.start<PipelineRunResult>('pipelineRunWorkflow', { workflowId: 'pipeline-run/reliability-answers/faults', args: [input] });
    await env.waitUntil(async () => (await handle.query(pipelineRunStateQuery)).counts.completed >= items / 3 && inFlight > 0, {
      timeoutMs: 3_600_000,
      description: 'a third of the answers done with calls in flight',
    });
    const inFlightAtStop = inFlight;
    await env.restartWorker();

    const result = await handle.result();
    const seconds = (Date.now() - started) / 1000;
    const stats = world.emulator.stats.snapshot();
    const lines = await jsonlOutput(result);
    // What one answer cost, without what an earlier attempt may also have been charged (counted beside it).
    const costs = lines.map(
      (line) => ((line as { cost_usd?: number }).cost_usd ?? 0) - ((line as { possibly_charged_usd?: number }).possibly_charged_usd ?? 0),
    );
    const mostExpensive = Math.max(...costs);
    const possiblyCharged = lines.reduce((sum, line) => sum + ((line as { possibly_charged_usd?: number }).possibly_charged_usd ?? 0), 0);
    const listed = `TaskQueue = "${env.taskQueue}"`;
    await env.waitUntil(async () => (await env.client.workflow.count(listed)).count >= 1, { description: 'the run to be listed' });
    const { executions, texts } = await payloadTextsOnQueue(env.client, env.taskQueue);
    const leaks = leakedSecrets([...logs.lines, ...texts], new Map([['API key', FAKE_API_KEY]]));
    report('answer pipeline under faults', {
      items,
      seconds: seconds.toFixed(1),
      counts: result.counts,
      spentUsd: result.ledger.spentUsd.toFixed(4),
      chargedUsd: stats.chargedUsd.toFixed(4),
      budgetUsd,
      mostExpensiveAnswerUsd: mostExpensive.toFixed(4),
      possiblyChargedTwiceUsd: possiblyCharged.toFixed(4),
      answerRequests: stats.requests.answer,
      injectedFaults: stats.injectedFaults,
      droppedConnections: stats.droppedConnections,
      timedOutCalls: timedOut,
      activitiesInFlightAtRestart: inFlightAtStop,
      executionsScanned: executions,
      logLinesScanned: logs.lines.length,
      leaks,
    });

    expect(stats.droppedConnections.answer).toBeGreaterThan(0);
    expect(stats.injectedFaults.answer).toMatchObject({ error: expect.any(Number), rateLimitBurst: expect.any(Number), latency: expect.any(Number) });
    expect(timedOut).toBeGreaterThan(0);
    expect(inFlightAtStop).toBeGreaterThan(0);
    expect(result.counts.completed + result.counts.failed).toBe(items);
    expect(result.counts).toMatchObject({ read: items, completed: items, failed: 0 });
    expect(new Set(lines.map((line) => line.key)).size).toBe(items);
    expect(await linesWithResults(lines)).toHaveLength(items);
    // An Answer has no idempotency key: one lost after the service may have charged it (a dropped
    // connection, a client time-out) is counted at its reserved price and retried through the budget,
    // so the run's ledger never shows less than the service charged, and neither passes the budget by
    // more than one answer's price.
    // A call cut off by the worker's stop is seen too: the retry on the next worker finds the attempt it
    // left marked as sent and counts it as possibly charged.
    const reserveUsd = ANSWER_PRICE_USD + 0.05;
    expect(result.ledger.spentUsd).toBeGreaterThanOrEqual(stats.chargedUsd - 1e-9);
    expect(result.ledger.spentUsd).toBeLessThanOrEqual(budgetUsd + reserveUsd + 1e-9);
    expect(stats.chargedUsd).toBeLessThanOrEqual(budgetUsd + reserveUsd + 1e-9);
    expect(mostExpensive).toBeLessThanOrEqual(reserveUsd);
    expect(texts.some((text) => text.includes('Headcount of Company 7 (company-7.example)'))).toBe(true);
    expect(leaks).toEqual([]);
  });
});
