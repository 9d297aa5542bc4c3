import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { dataConverterFromConfig, payloadCodecFromConfig, startCodecServer, type RunningCodecServer } from '../../src/codec';
import { loadConfig, type Config } from '../../src/config';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { Writable } from 'node:stream';
import { configSecrets, createLogger } from '../../src/logging';
import { freePort } from '../../src/temporal/server';
import { runWorker } from '../../src/worker';
import { POLL_PROFILES, RECONCILE_DELAYS_MS } from '../../src/workflows/polling';
import type { ResearchTaskInput } from '../../src/workflows/types';
import { testServer } from '../support/server/test-server';
import type { ResearchTaskResult } from '../../src/domain/research-types';
import type { PipelineRunResult } from '../../src/domain/pipeline-types';
import { pipelineItemWorkflowId } from '../../src/domain/ids';
import { itemSource, parsePipelineDefinition, resolveParameters } from '../../src/pipelines';
import { pipelineRunStateQuery, raiseBudgetUpdate, researchTaskStateQuery, respondToCheckpointUpdate } from '../../src/workflows/definitions';

// One worker process as deployed (`runWorker` from the configuration, codec key and Prometheus endpoint
// set) on the run's real Temporal server. A Temporal runtime is installed once per process, so the
// codec and the metrics share this file's worker.
const server = testServer();
const SPEED = 120;
const SECRET_QUERY = `Confidential: Acme Corp acquisition target ${randomUUID()}`;
const CODEC_TOKEN = 'codec-token-for-the-ui-0123456789';

const scale = (ms: number) => Math.max(1, Math.round(ms / SPEED));
const polling: ResearchTaskInput['polling'] = {
  initialDelayMs: scale(POLL_PROFILES.fast.initialDelayMs),
  maxDelayMs: scale(POLL_PROFILES.fast.maxDelayMs),
  reconcileDelaysMs: RECONCILE_DELAYS_MS.map(scale),
};

async function scrape(address: string): Promise<string> {
  const response = await fetch(`http://${address}/metrics`);
  return response.text();
}

/** A project gauge's value for one pipeline in a scrape, or undefined when the endpoint has none. */
function gauge(metrics: string, name: string, pipeline: string): number | undefined {
  const line = metrics.split('\n').find((row) => row.startsWith(`${name}{`) && row.includes(`pipeline="${pipeline}"`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// Every payload of a history but search attributes, which Temporal indexes and never passes to a codec
// (the project's hold status, mode, ids and cost: nothing from the input).
function payloadsOf(history: temporal.api.history.v1.IHistory): temporal.api.common.v1.IPayload[] {
  const found: temporal.api.common.v1.IPayload[] = [];
  const walk = (value: unknown): void => {
    if (!value || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach(walk);
    const record = value as Record<string, unknown>;
    if ('data' in record && 'metadata' in record && record.data instanceof Uint8Array) found.push(record);
    else Object.entries(record).forEach(([key, field]) => key !== 'searchAttributes' && walk(field));
  };
  walk(history.events);
  return found;
}

const body = (payloads: temporal.api.common.v1.IPayload[]) => ({
  payloads: payloads.map((payload) => ({
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')])),
    data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
  })),
});

(server.available ? describe : describe.skip)(`a deployed worker on the real server${server.available ? '' : ` [skipped: ${server.reason}]`}`, () => {
  jest.setTimeout(120_000);
  if (!server.available) return;
  let dir: string;
  let config: Config;
  let emulator: RunningEmulator;
  let stopWorker: AbortController;
  let worker: Promise<void>;
  let connection: Connection;
  let codecServer: RunningCodecServer;
  let result: ResearchTaskResult;
  let workflowId: string;
  const logLines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rp-deployed-'));
    config = loadConfig({
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: server.namespace,
      TEMPORAL_TASK_QUEUE: `deployed-${randomUUID()}`,
      PAYLOAD_CODEC_KEYS: `k2:${randomBytes(32).toString('base64')},k1:${randomBytes(32).toString('base64')}`,
      METRICS_BIND_ADDRESS: `127.0.0.1:${await freePort()}`,
      ARTIFACT_DIR: path.join(dir, 'artifacts'),
      LOG_LEVEL: 'info',
    });
    // Every status call fails with a 5xx until the service error metric shows; then the task completes.
    emulator = await startEmulator({
      speed: SPEED,
      seed: 'deployed',
      research: { durationJitter: 0 },
      faults: { 'deepresearch.status': { errorRate: 1 }, 'deepresearch.get': { errorRate: 1 } },
    });
    stopWorker = new AbortController();
    worker = runWorker(config, {
      signal: stopWorker.signal,
      logger: createLogger(config, {
        secrets: [...configSecrets(config), emulator.defaultApiKey],
        destination: new Writable({
          write(chunk: Buffer, _encoding, done) {
            logLines.push(JSON.parse(chunk.toString()));
            done();
          },
        }),
      }),
      startEmulator: async () => ({ baseUrl: emulator.url, apiKey: emulator.defaultApiKey, close: async () => undefined }),
    });
    connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection, namespace: server.namespace, dataConverter: dataConverterFromConfig(config) });
    workflowId = `deployed-${randomUUID()}`;
    const input: ResearchTaskInput = { request: { query: SECRET_QUERY, mode: 'fast' }, context: { pipeline: 'deployed', run: 'r1', item: 'secret' }, polling };
    const handle = await client.workflow.start('researchTaskWorkflow', { taskQueue: config.temporal.taskQueue, workflowId, args: [input] });
    await eventually('the service error metric', async () =>
      /research_service_errors_total\{[^}]*status="50[023]"/.test(await scrape(config.metricsBindAddress!)),
    );
    emulator.faults.replace({});
    result = (await handle.result()) as ResearchTaskResult;
    codecServer = await startCodecServer({
      codec: payloadCodecFromConfig(config)!,
      token: CODEC_TOKEN,
      corsOrigins: ['http://localhost:8080'],
      namespaces: [server.namespace],
    });
  });

  afterAll(async () => {
    stopWorker?.abort();
    await worker;
    await codecServer?.close();
    await connection?.close();
    await emulator?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('the task completes through the encrypted data converter', () => {
    expect(result).toMatchObject({ status: 'completed', mode: 'fast' });
  });

  test('the raw history holds no plaintext input: every payload is binary/encrypted under the active key', async () => {
    const raw = new Client({ connection, namespace: server.namespace });
    const history = await raw.workflow.getHandle(workflowId).fetchHistory();
    // Patch markers (what `patched()` records) are written by the SDK's core in plain JSON and hold only
    // the patch's name, never workflow data: checked apart.
    const isPatch = (event: temporal.api.history.v1.IHistoryEvent) => event.markerRecordedEventAttributes?.markerName === 'core_patch';
    const patches = payloadsOf({ events: (history.events ?? []).filter(isPatch) });
    for (const payload of patches)
      expect(JSON.parse(Buffer.from(payload.data ?? new Uint8Array()).toString('utf8'))).toEqual({ id: expect.stringMatching(/^[a-z-]+$/), deprecated: false });
    const payloads = payloadsOf({ ...history, events: (history.events ?? []).filter((event) => !isPatch(event)) });
    expect(payloads.length).toBeGreaterThan(5);
    const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('latin1');
    for (const payload of payloads) {
      expect(text(payload.metadata?.encoding)).toBe('binary/encrypted');
      expect(text(payload.metadata?.['encryption-key-id'])).toBe('k2');
    }
    const everything = JSON.stringify(history, (_key, value: unknown) => (value instanceof Uint8Array ? text(value) : value));
    expect(everything).not.toContain('Acme Corp acquisition');
    expect(everything).not.toContain(emulator.defaultApiKey);
  });

  test('a client without the keys (rp status, a backend) is told which setting is missing, not "Unknown encoding"', async () => {
    const keyless = new Client({ connection, namespace: server.namespace, dataConverter: dataConverterFromConfig({}) });
    await expect(keyless.workflow.getHandle(workflowId).result()).rejects.toThrow(/payloads are encrypted \(key id "k2"\) and PAYLOAD_CODEC_KEYS is not set/);
  });

  test('the codec endpoint decodes those payloads for the UI with the bearer token', async () => {
    const raw = new Client({ connection, namespace: server.namespace });
    const started = (await raw.workflow.getHandle(workflowId).fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
    const response = await fetch(`${codecServer.url}/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${CODEC_TOKEN}`, 'x-namespace': server.namespace, origin: 'http://localhost:8080' },
      body: JSON.stringify(body(started?.input?.payloads ?? [])),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:8080');
    const decoded = (await response.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
    expect(Buffer.from(decoded.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('json/plain');
    expect(JSON.parse(Buffer.from(decoded.payloads[0]!.data, 'base64').toString())).toMatchObject({ request: { query: SECRET_QUERY } });
  });

  test('the codec endpoint refuses a missing or wrong token (401) and names the bad field of a body (400)', async () => {
    const post = (headers: Record<string, string>, payload: unknown) =>
      fetch(`${codecServer.url}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-namespace': server.namespace, ...headers },
        body: JSON.stringify(payload),
      });
    expect((await post({}, { payloads: [] })).status).toBe(401);
    expect((await post({ authorization: 'Bearer wrong-token-0123456789abcdef' }, { payloads: [] })).status).toBe(401);
    const auth = { authorization: `Bearer ${CODEC_TOKEN}` };
    const badData = await post(auth, { payloads: [{ metadata: {}, data: 'not base64!' }] });
    expect(badData.status).toBe(400);
    expect(await badData.json()).toEqual({ error: 'payloads.0.data: must be base64' });
    const noPayloads = await post(auth, { items: [] });
    expect(noPayloads.status).toBe(400);
    expect(((await noPayloads.json()) as { error: string }).error).toMatch(/^payloads: /);
    expect((await post({ ...auth, 'x-namespace': 'elsewhere' }, { payloads: [] })).status).toBe(403);
  });

  test('the SDK, worker and activity logs go through pino as JSON lines without secrets', () => {
    expect(logLines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 'info', msg: expect.stringMatching(/^worker polling task queue deployed-/), service: 'research-pipelines' }),
        expect.objectContaining({ level: 'info', sdkComponent: 'worker', taskQueue: config.temporal.taskQueue }),
        // An activity's own log line, with the context the SDK adds.
        expect.objectContaining({ level: 'info', sdkComponent: 'activity', activityType: 'createResearchTask', msg: 'Research task created', workflowId }),
      ]),
    );
    // The SDK adds the activity's task token to its lines: whoever holds it can complete the activity.
    const activityLines = logLines.filter((line) => line.sdkComponent === 'activity');
    expect(activityLines.length).toBeGreaterThan(0);
    for (const line of activityLines) expect(line.taskToken).toBe('[REDACTED]');
    const text = JSON.stringify(logLines);
    expect(text).not.toContain(emulator.defaultApiKey);
    for (const key of config.codec!.keys.values()) expect(text).not.toContain(key.toString('base64'));
  });

  test('the Prometheus endpoint carries the project metrics with their labels beside the SDK ones', async () => {
    let metrics = '';
    await eventually('the task metrics', async () =>
      /research_tasks_total\{[^}]*status="completed"/.test((metrics = await scrape(config.metricsBindAddress!))),
    );
    expect(metrics).toMatch(/research_tasks_total\{[^}]*mode="fast"[^}]*\} 1/);
    // Started minus ended is what is in flight: nothing, now that the task ended.
    expect(metrics).toMatch(/research_tasks_started_total\{[^}]*mode="fast"[^}]*\} 1/);
    expect(metrics).toMatch(/research_task_cost_usd_sum\{[^}]*mode="fast"[^}]*\} 0\.1/);
    expect(metrics).toMatch(
      /research_service_errors_total\{[^}]*activityType="getResearchTask"[^}]*failure_type="ResearchServiceUnavailable"[^}]*status="50[023]"[^}]*\} [1-9]/,
    );
    // The SDK's own metrics share the endpoint.
    expect(metrics).toContain('temporal_workflow_completed');
  });

  test('the pipeline gauges move while items wait for a person and the run waits for budget, and settle when it ends', async () => {
    const client = new Client({ connection, namespace: server.namespace, dataConverter: dataConverterFromConfig(config) });
    const yaml = `
name: gauged
input:
  items: [alpha, beta, gamma]
  key: "{{ item }}"
step:
  deepresearch:
    query: "Profile {{ item }}"
    mode: fast
    hitl: { plan_review: true }
concurrency: 2
start_rate_per_second: 50
budget_usd: 0.25
`;
    const loaded = parsePipelineDefinition(yaml, path.join(dir, 'gauged.yaml'));
    const chargedBefore = emulator.stats.snapshot().chargedUsd;
    const handle = await client.workflow.start('pipelineRunWorkflow', {
      taskQueue: config.temporal.taskQueue,
      workflowId: `pipeline-run/gauged/${randomUUID()}`,
      args: [
        {
          definition: loaded.definition,
          source: itemSource(loaded),
          params: resolveParameters(loaded.definition.parameters, {}, { textValues: true }),
          polling,
          runKey: 'g1',
        },
      ],
    });
    const values = async () => {
      const metrics = await scrape(config.metricsBindAddress!);
      return {
        inFlight: gauge(metrics, 'research_pipeline_items_in_flight', 'gauged'),
        waitingForPerson: gauge(metrics, 'research_pipeline_items_waiting_for_person', 'gauged'),
        waitingForBudget: gauge(metrics, 'research_pipeline_run_waiting_for_budget', 'gauged'),
        waitingForCredits: gauge(metrics, 'research_pipeline_run_waiting_for_credits', 'gauged'),
        reservedUsd: gauge(metrics, 'research_pipeline_reserved_usd', 'gauged'),
        spentUsd: gauge(metrics, 'research_pipeline_spent_usd', 'gauged'),
      };
    };
    const answerWaiting = async (count: number) => {
      let keys: string[] = [];
      await eventually(
        `${count} item(s) at their plan review`,
        async () => (keys = (await handle.query(pipelineRunStateQuery)).waiting.checkpoint).length === count,
        60_000,
      );
      for (const key of keys) {
        const item = client.workflow.getHandle(pipelineItemWorkflowId('gauged', 'g1', key));
        const interaction = (await item.query(researchTaskStateQuery)).interaction!;
        await item.executeUpdate(respondToCheckpointUpdate, { args: [{ interactionId: interaction.interaction_id, response: { approved: true } }] });
      }
    };

    // Two items run and wait at their plan review: two in flight, two waiting for a person, money reserved.
    await eventually('the gauges of two items waiting for a person', async () => (await values()).waitingForPerson === 2, 60_000);
    const waiting = await values();
    expect(waiting).toMatchObject({ inFlight: 2, waitingForPerson: 2, waitingForBudget: 0, waitingForCredits: 0 });
    expect(waiting.reservedUsd).toBeGreaterThan(0);
    await answerWaiting(2);

    // The third item would pass the budget: the run waits for a raise with nothing in flight.
    await eventually('the budget wait gauge', async () => (await values()).waitingForBudget === 1, 60_000);
    const blocked = await values();
    expect(blocked).toMatchObject({ inFlight: 0, waitingForPerson: 0, reservedUsd: 0 });
    expect(blocked.spentUsd).toBeCloseTo(0.2, 6);
    await handle.executeUpdate(raiseBudgetUpdate, { args: [{ addUsd: 0.2 }] });
    await eventually('the budget wait to end', async () => (await values()).waitingForBudget === 0, 60_000);
    await answerWaiting(1);

    const result = (await handle.result()) as PipelineRunResult;
    expect(result.counts).toMatchObject({ completed: 3, failed: 0 });
    // The service's own records: the run's spend (where the gauge settles) is what the emulator charged for it.
    expect(result.ledger.spentUsd).toBeCloseTo(emulator.stats.snapshot().chargedUsd - chargedBefore, 6);
    await eventually('the gauges to settle', async () => (await values()).spentUsd === result.ledger.spentUsd);
    expect(await values()).toEqual({
      inFlight: 0,
      waitingForPerson: 0,
      waitingForBudget: 0,
      waitingForCredits: 0,
      reservedUsd: 0,
      spentUsd: result.ledger.spentUsd,
    });
  });
});
