import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../../src/config';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { createLogger } from '../../src/logging';
import { otlpTracesUrl, workerTracing } from '../../src/observability/tracing';
import { runWorker } from '../../src/worker';
import { POLL_PROFILES, RECONCILE_DELAYS_MS } from '../../src/workflows/polling';
import type { ResearchTaskInput } from '../../src/workflows/types';
import type { ResearchTaskResult } from '../../src/domain/research-types';
import { testServer } from '../support/server/test-server';

describe('tracing settings', () => {
  test('no endpoint, no tracing', () => {
    expect(otlpTracesUrl({})).toBeUndefined();
    expect(workerTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeUndefined();
  });

  test('spans go to /v1/traces under the endpoint, or to the traces endpoint as given', () => {
    expect(otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toBe('http://collector:4318/v1/traces');
    expect(otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/traces' })).toBe('https://b/traces');
  });

  test('a bad endpoint is refused naming the setting, and credentials in the URL are not shown', async () => {
    expect(() => workerTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/^OTEL_EXPORTER_OTLP_ENDPOINT: must be an http\(s\) URL/);
    expect(() => workerTracing({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' })).toThrow(/^OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: must be an http\(s\) URL$/);
    const tracing = workerTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://user:secret@collector.example:4318' })!;
    expect(tracing.url).toBe('https://collector.example:4318/v1/traces');
    await tracing.shutdown();
  });
});

const server = testServer();
const SPEED = 120;
const scale = (ms: number) => Math.max(1, Math.round(ms / SPEED));

(server.available ? describe : describe.skip)(`tracing of a worker on the real server${server.available ? '' : ` [skipped: ${server.reason}]`}`, () => {
  jest.setTimeout(120_000);
  if (!server.available) return;
  const posts: Array<{ path: string; body: string }> = [];
  let receiver: Server;
  let emulator: RunningEmulator;
  let dir: string;
  const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;

  beforeAll(async () => {
    // A loopback OTLP/HTTP receiver: it keeps what is posted and answers as a collector does.
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.method === 'POST') posts.push({ path: request.url ?? '', body: Buffer.concat(chunks).toString('latin1') });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    emulator = await startEmulator({ speed: SPEED, seed: 'traced', research: { durationJitter: 0 } });
    dir = await mkdtemp(path.join(tmpdir(), 'rp-traced-'));
  });

  afterAll(async () => {
    if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
    await emulator?.close();
    await new Promise((resolve) => receiver?.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  test('with OTEL_EXPORTER_OTLP_ENDPOINT set, the spans of a task (workflow and activities) reach the OTLP receiver', async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const config = loadConfig({
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: server.namespace,
      TEMPORAL_TASK_QUEUE: `traced-${randomUUID()}`,
      ARTIFACT_DIR: path.join(dir, 'artifacts'),
      LOG_LEVEL: 'error',
    });
    const stop = new AbortController();
    const worker = runWorker(config, {
      signal: stop.signal,
      logger: createLogger(config, { destination: new Writable({ write: (_chunk, _encoding, done) => done() }) }),
      log: () => undefined,
      startEmulator: async () => ({ baseUrl: emulator.url, apiKey: emulator.defaultApiKey, close: async () => undefined }),
    });
    const connection = await Connection.connect({ address: server.address });
    try {
      const client = new Client({ connection, namespace: server.namespace });
      const input: ResearchTaskInput = {
        request: { query: 'Heat pump adoption in Europe', mode: 'fast' },
        polling: {
          initialDelayMs: scale(POLL_PROFILES.fast.initialDelayMs),
          maxDelayMs: scale(POLL_PROFILES.fast.maxDelayMs),
          reconcileDelaysMs: RECONCILE_DELAYS_MS.map(scale),
        },
      };
      const handle = await client.workflow.start('researchTaskWorkflow', {
        taskQueue: config.temporal.taskQueue,
        workflowId: `traced-${randomUUID()}`,
        args: [input],
      });
      expect(((await handle.result()) as ResearchTaskResult).status).toBe('completed');
    } finally {
      // Stopping the worker flushes the spans it still holds.
      stop.abort();
      await worker;
      await connection.close();
    }
    expect(posts.length).toBeGreaterThan(0);
    expect(new Set(posts.map((post) => post.path))).toEqual(new Set(['/v1/traces']));
    const sent = posts.map((post) => post.body).join('\n');
    // The workflow's own span (exported through the workflow sink) and its activities' spans.
    expect(sent).toContain('RunWorkflow:researchTaskWorkflow');
    expect(sent).toContain('RunActivity:createResearchTask');
    expect(sent).toContain('research-pipelines');
    // One trace: the activities' spans are children of the workflow's (the context travels in headers).
    type Spans = { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; traceId: string }> }> }> };
    const spans = posts.flatMap((post) => (JSON.parse(post.body) as Spans).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((scope) => scope.spans)));
    const traceOf = (name: string) => spans.find((span) => span.name === name)?.traceId;
    expect(traceOf('RunActivity:createResearchTask')).toBe(traceOf('RunWorkflow:researchTaskWorkflow'));
    // Spans carry ids and types, never the research input.
    expect(sent).not.toContain('Heat pump adoption');
  });
});
