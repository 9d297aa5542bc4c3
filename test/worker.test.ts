import path from 'node:path';
import { ResearchClient } from '../src/api';
import { InMemoryWebhookSecretStore, LocalArtifactStore } from '../src/activities';
import { loadConfig } from '../src/config';
import { MissingKeysPayloadCodec } from '../src/codec';
import { createWorkerOptions, openResearchService } from '../src/worker';

const ACTIVITY_NAMES = [
  'addResearchBatchTasks',
  'addResearchInstruction',
  'answerResearchCheckpoint',
  'cancelResearchBatch',
  'cancelResearchTask',
  'checkPipelineKeys',
  'collectResearchBatchPage',
  'createResearchBatch',
  'createResearchTask',
  'deleteResearchTask',
  'findResearchTask',
  'getResearchBatch',
  'getResearchTask',
  'lookItemWorkflow',
  'notifyRun',
  'planPipelineStep',
  'preparePipelineBatch',
  'preparePipelineSynthesis',
  'readPipelinePage',
  'recordPipelineBatch',
  'recordPipelineItems',
  'recordPipelineStep',
  'runPipelineItem',
  'runPipelineItems',
  'sinkPipelineItemRows',
  'sinkPipelineRows',
  'storeEndedResearchOutputs',
  'storeResearchOutputs',
  'writePipelineOutputs',
];

describe('createWorkerOptions', () => {
  test('binds the task queue, namespace, workflows bundle and every activity', () => {
    const config = loadConfig({ TEMPORAL_NAMESPACE: 'research', TEMPORAL_TASK_QUEUE: 'rq' });
    const api = new ResearchClient({ baseUrl: 'https://research.test/v1', apiKey: 'rk_test_1234567890' });
    const options = createWorkerOptions(config, { api, store: new LocalArtifactStore('/tmp/unused'), secrets: new InMemoryWebhookSecretStore() });
    expect(options).toMatchObject({ namespace: 'research', taskQueue: 'rq', shutdownGraceTime: '90 seconds' });
    expect(options.workflowsPath).toBe(path.resolve(__dirname, '../src/workflows/index.ts'));
    expect(Object.keys(options.activities ?? {}).sort()).toEqual(ACTIVITY_NAMES);
  });

  test('bounds the workflow cache only when WORKER_MAX_CACHED_WORKFLOWS is set (else the SDK sizes it from the heap)', () => {
    const api = new ResearchClient({ baseUrl: 'https://research.test/v1', apiKey: 'rk_test_1234567890' });
    const deps = { api, store: new LocalArtifactStore('/tmp/unused'), secrets: new InMemoryWebhookSecretStore() };
    expect(createWorkerOptions(loadConfig({ WORKER_MAX_CACHED_WORKFLOWS: '250' }), deps).maxCachedWorkflows).toBe(250);
    expect(createWorkerOptions(loadConfig({ WORKER_MAX_CACHED_WORKFLOWS: '0' }), deps).maxCachedWorkflows).toBe(0);
    expect(createWorkerOptions(loadConfig({}), deps)).not.toHaveProperty('maxCachedWorkflows');
  });
});

describe('createWorkerOptions with a codec key', () => {
  test('encrypts payloads with the configured codec and registers the metric interceptors; without a key, plain payloads and a codec that names the missing keys', () => {
    const deps = {
      api: new ResearchClient({ baseUrl: 'https://research.test/v1', apiKey: 'rk_test_1234567890' }),
      store: new LocalArtifactStore('/tmp/unused'),
      secrets: new InMemoryWebhookSecretStore(),
    };
    const encrypted = createWorkerOptions(loadConfig({ PAYLOAD_CODEC_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}` }), deps);
    expect(encrypted.dataConverter?.payloadCodecs).toEqual([expect.objectContaining({ activeKeyId: 'k1' })]);
    expect(encrypted.dataConverter?.failureConverterPath).toBe(path.resolve(__dirname, '../src/codec/failure-converter.ts'));
    expect(encrypted.interceptors?.workflowModules).toEqual(
      ['interceptors', 'metrics-interceptors'].map((name) => path.resolve(__dirname, `../src/workflows/${name}.ts`)),
    );
    expect(encrypted.interceptors?.activity).toHaveLength(1);
    const plain = createWorkerOptions(loadConfig({}), deps).dataConverter;
    expect(plain?.payloadCodecs).toEqual([expect.any(MissingKeysPayloadCodec)]);
    expect(plain?.failureConverterPath).toBeUndefined();
  });
});

describe('createWorkerOptions with the settings rp dev has', () => {
  test('gives rp dev the worker rp worker runs: its own task queue, the shutdown grace, the metric interceptors and the codec', () => {
    const deps = {
      api: new ResearchClient({ baseUrl: 'https://research.test/v1', apiKey: 'rk_test_1234567890' }),
      store: new LocalArtifactStore('/tmp/unused'),
      secrets: new InMemoryWebhookSecretStore(),
    };
    const codec = loadConfig({ PAYLOAD_CODEC_KEYS: `k2:${Buffer.alloc(32, 2).toString('base64')}` }).codec;
    const dev = createWorkerOptions({ temporal: { namespace: 'default', taskQueue: 'research-dev-1' }, codec }, deps);
    const worker = createWorkerOptions(loadConfig({ PAYLOAD_CODEC_KEYS: `k2:${Buffer.alloc(32, 2).toString('base64')}` }), deps);
    expect(dev).toMatchObject({
      namespace: 'default',
      taskQueue: 'research-dev-1',
      shutdownGraceTime: worker.shutdownGraceTime,
      workflowsPath: worker.workflowsPath,
    });
    expect(dev.interceptors).toEqual(worker.interceptors);
    expect(dev.dataConverter?.payloadCodecs).toEqual([expect.objectContaining({ activeKeyId: 'k2' })]);
    expect(dev.dataConverter?.failureConverterPath).toBe(worker.dataConverter?.failureConverterPath);
    expect(Object.keys(dev.activities ?? {}).sort()).toEqual(ACTIVITY_NAMES);
  });
});

describe('openResearchService', () => {
  test('without a service URL it starts the embedded emulator and talks to it', async () => {
    const research = await openResearchService(loadConfig({}));
    try {
      expect(research.api.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(await research.api.listTasks()).toEqual([]);
    } finally {
      await research.close();
    }
  });

  test('uses the emulator the starter returns and stops it on close', async () => {
    const close = jest.fn(async () => undefined);
    const research = await openResearchService(loadConfig({}), async () => ({ baseUrl: 'http://127.0.0.1:9999/v1', apiKey: 'rk_emulator_key', close }));
    expect(research.api.baseUrl).toBe('http://127.0.0.1:9999/v1');
    await research.close();
    expect(close).toHaveBeenCalledTimes(1);
  });

  test('a configured service gets a client for its URL', async () => {
    const research = await openResearchService(
      loadConfig({ RESEARCH_API_BASE_URL: 'https://api.research.example/v1', RESEARCH_API_KEY: 'rk_live_1234567890' }),
    );
    expect(research.api.baseUrl).toBe('https://api.research.example/v1');
    await research.close();
  });
});
