import { inspect } from 'node:util';
import { checkWorkerResearchService, ConfigError, loadConfig } from '../src/config';
import { connectionSecurityOptions } from '../src/temporal/connection-options';
import { runWorker } from '../src/worker';

const KEY = 'rk_live_do_not_print_me_42';
const INTAKE_KEY = 'ik_0123456789abcdef0123456789abcdef_never_logged';
const service = { RESEARCH_API_BASE_URL: 'https://api.research.example/v1', RESEARCH_API_KEY: KEY };

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  test('an empty environment selects the embedded emulator with the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      temporal: { address: 'localhost:7233', addressSet: false, namespace: 'default', taskQueue: 'research-pipelines' },
      research: { kind: 'emulator' },
      artifactDir: './.artifacts',
      codecServer: { corsOrigins: ['http://localhost:8080'], allowUnauthenticated: false },
      workerHeap: 'compact',
      log: { level: 'info', format: 'json' },
    });
  });

  test('reads every variable', () => {
    const config = loadConfig({
      ...service,
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_NAMESPACE: 'research',
      TEMPORAL_TASK_QUEUE: 'rq',
      ARTIFACT_DIR: '/data/artifacts',
      WEBHOOK_SECRET_DIR: '/data/secrets',
      INTAKE_PUBLIC_URL: 'https://intake.example.com/',
      INTAKE_KEY: INTAKE_KEY,
      RESEARCH_API_TIMEOUT_MS: '90000',
      RESEARCH_API_REQUESTS_PER_SECOND: '2.5',
      RESEARCH_API_BURST: '3',
      CODEC_CORS_ORIGINS: 'https://temporal-ui.example.com, http://localhost:8080',
      CODEC_SERVER_TOKEN: 'codec-token-0123456789abcdef',
      METRICS_BIND_ADDRESS: '0.0.0.0:9464',
      WORKER_MAX_CACHED_WORKFLOWS: '500',
      WORKER_HEAP: 'node',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'pretty',
    });
    expect(config).toEqual({
      temporal: { address: 'temporal.internal:7233', addressSet: true, namespace: 'research', taskQueue: 'rq' },
      research: { kind: 'service', baseUrl: 'https://api.research.example/v1', timeoutMs: 90_000, rate: { requestsPerSecond: 2.5, burst: 3 } },
      artifactDir: '/data/artifacts',
      webhookSecretDir: '/data/secrets',
      intakePublicUrl: 'https://intake.example.com',
      codecServer: { corsOrigins: ['https://temporal-ui.example.com', 'http://localhost:8080'], allowUnauthenticated: false },
      metricsBindAddress: '0.0.0.0:9464',
      maxCachedWorkflows: 500,
      workerHeap: 'node',
      log: { level: 'debug', format: 'pretty' },
    });
    expect(config.research.kind === 'service' && config.research.apiKey).toBe(KEY);
    expect(config.codecServer.token).toBe('codec-token-0123456789abcdef');
    expect(config.intakeKey).toBe(INTAKE_KEY);
    expect(JSON.stringify(config)).not.toContain(INTAKE_KEY);
  });

  test('Temporal Cloud: an API key turns TLS on and stays hidden; mTLS needs both files', () => {
    const cloud = loadConfig({ TEMPORAL_ADDRESS: 'research.a1b2c.tmprl.cloud:7233', TEMPORAL_API_KEY: 'tcld_secret_api_key_value' });
    expect(connectionSecurityOptions(cloud.temporal.security)).toEqual({ tls: true, apiKey: 'tcld_secret_api_key_value' });
    expect(cloud.temporal.security?.apiKey).toBe('tcld_secret_api_key_value');
    expect(JSON.stringify(cloud)).not.toContain('tcld_secret');
    const mtls = loadConfig({ TEMPORAL_TLS_CLIENT_CERT_PATH: '/certs/client.pem', TEMPORAL_TLS_CLIENT_KEY_PATH: '/certs/client.key' });
    expect(mtls.temporal.security).toEqual({ tls: { clientCert: { path: '/certs/client.pem' }, clientKey: { path: '/certs/client.key' } } });
    expect(() => loadConfig({ TEMPORAL_TLS_CLIENT_CERT_PATH: '/certs/client.pem' })).toThrow(
      'TEMPORAL_TLS_CLIENT_KEY_PATH: mTLS needs both a client certificate and its key',
    );
  });

  test('the API key never shows when the config is logged or serialised', () => {
    const config = loadConfig(service);
    expect(JSON.stringify(config)).not.toContain(KEY);
    expect(inspect(config, { depth: 5 })).not.toContain(KEY);
  });

  test('empty variables count as unset', () => {
    expect(loadConfig({ TEMPORAL_NAMESPACE: '', RESEARCH_API_BASE_URL: '', RESEARCH_API_KEY: '' }).temporal.namespace).toBe('default');
  });

  test.each([
    [{ RESEARCH_API_BASE_URL: 'not a url', RESEARCH_API_KEY: KEY }, 'RESEARCH_API_BASE_URL', 'must be an http(s) URL'],
    [{ RESEARCH_API_BASE_URL: 'ftp://files.example/v1', RESEARCH_API_KEY: KEY }, 'RESEARCH_API_BASE_URL', 'must be an http(s) URL'],
    [{ RESEARCH_API_BASE_URL: 'https://api.research.example/v1' }, 'RESEARCH_API_KEY', 'is required when RESEARCH_API_BASE_URL is set'],
    [{ RESEARCH_API_KEY: KEY }, 'RESEARCH_API_BASE_URL', 'is required when RESEARCH_API_KEY is set'],
    [{ RESEARCH_API_TIMEOUT_MS: 'soon' }, 'RESEARCH_API_TIMEOUT_MS', 'must be a whole number of milliseconds'],
    [{ RESEARCH_API_TIMEOUT_MS: '0' }, 'RESEARCH_API_TIMEOUT_MS', 'must be at least 1'],
    [{ RESEARCH_API_REQUESTS_PER_SECOND: 'fast' }, 'RESEARCH_API_REQUESTS_PER_SECOND', 'must be a number of requests per second'],
    [{ RESEARCH_API_REQUESTS_PER_SECOND: '0' }, 'RESEARCH_API_REQUESTS_PER_SECOND', 'must be more than 0'],
    [{ RESEARCH_API_BURST: '5' }, 'RESEARCH_API_REQUESTS_PER_SECOND', 'is required when RESEARCH_API_BURST is set'],
    [{ RESEARCH_API_REQUESTS_PER_SECOND: '10', RESEARCH_API_BURST: '0' }, 'RESEARCH_API_BURST', 'must be at least 1'],
    [{ TEMPORAL_ADDRESS: 'http://localhost:7233' }, 'TEMPORAL_ADDRESS', 'must be host:port'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', 'must be one of trace, debug, info, warn, error'],
    [{ LOG_FORMAT: 'xml' }, 'LOG_FORMAT', 'must be json or pretty'],
    [{ METRICS_BIND_ADDRESS: '9464' }, 'METRICS_BIND_ADDRESS', 'must be host:port'],
    [{ WORKER_HEAP: 'small' }, 'WORKER_HEAP', 'must be compact or node'],
    [{ WORKER_MAX_CACHED_WORKFLOWS: 'lots' }, 'WORKER_MAX_CACHED_WORKFLOWS', 'must be a whole number of workflow executions'],
    [{ WORKER_MAX_CACHED_WORKFLOWS: '1' }, 'WORKER_MAX_CACHED_WORKFLOWS', 'must be 0 (no cache: every workflow task replays its history) or at least 2'],
    [{ WORKER_MAX_CACHED_WORKFLOWS: '1000000' }, 'WORKER_MAX_CACHED_WORKFLOWS', 'must be at most 100000'],
    [{ CODEC_SERVER_TOKEN: 'short' }, 'CODEC_SERVER_TOKEN', 'must be at least 16 characters'],
    [{ CODEC_CORS_ORIGINS: 'http://ui.example.com/path' }, 'CODEC_CORS_ORIGINS', 'must be comma-separated origins'],
    [{ INTAKE_PUBLIC_URL: 'http://intake.example.com', INTAKE_KEY }, 'INTAKE_PUBLIC_URL', 'must be an HTTPS URL'],
    [{ INTAKE_PUBLIC_URL: 'https://intake.example.com' }, 'INTAKE_KEY', 'is required when INTAKE_PUBLIC_URL is set'],
    [{ INTAKE_PUBLIC_URL: 'https://intake.example.com', INTAKE_KEY: 'short' }, 'INTAKE_KEY', 'must be at least 32 characters'],
    [{ TEMPORAL_TASK_QUEUE: '   ' }, 'TEMPORAL_TASK_QUEUE', ''],
  ])('%j is refused, naming %s and the rule', (env, variable, rule) => {
    const error = configError(env);
    expect(error.issues).toEqual([expect.objectContaining({ variable, message: expect.stringContaining(rule) })]);
    expect(error.message).toContain(`${variable}: `);
  });

  test('lists every bad variable at once and never echoes the key', () => {
    const error = configError({ ...service, TEMPORAL_ADDRESS: 'nope', RESEARCH_API_TIMEOUT_MS: '-1', RESEARCH_API_KEY: `${KEY} with spaces` });
    expect(error.issues.map((issue) => issue.variable).sort()).toEqual(['RESEARCH_API_KEY', 'RESEARCH_API_TIMEOUT_MS', 'TEMPORAL_ADDRESS']);
    expect(error.message).not.toContain(KEY);
  });

  test('plain HTTP to a loopback intake is accepted for local development', () => {
    expect(loadConfig({ INTAKE_PUBLIC_URL: 'http://127.0.0.1:8080', INTAKE_KEY }).intakePublicUrl).toBe('http://127.0.0.1:8080');
  });
});

describe('ARTIFACT_URL', () => {
  test('s3://bucket/prefix selects the S3 store; AWS_S3_FORCE_PATH_STYLE=true asks for path-style addressing', () => {
    expect(loadConfig({ ARTIFACT_URL: 's3://research-artifacts/prod/eu', AWS_S3_FORCE_PATH_STYLE: 'true' })).toMatchObject({
      artifactStore: { kind: 's3', url: 's3://research-artifacts/prod/eu', bucket: 'research-artifacts', prefix: 'prod/eu/', forcePathStyle: true },
    });
    expect(loadConfig({ ARTIFACT_URL: 's3://research-artifacts' }).artifactStore).toEqual({
      kind: 's3',
      url: 's3://research-artifacts',
      bucket: 'research-artifacts',
      prefix: '',
      forcePathStyle: false,
    });
  });

  test('a path or file:// URL is the local store, as ARTIFACT_DIR is', () => {
    expect(loadConfig({ ARTIFACT_URL: 'file:///data/artifacts' })).toMatchObject({ artifactDir: '/data/artifacts' });
    expect(loadConfig({ ARTIFACT_URL: './out' })).toMatchObject({ artifactDir: './out' });
    expect(loadConfig({ ARTIFACT_URL: 'file:///data/artifacts' }).artifactStore).toBeUndefined();
    expect(loadConfig({ ARTIFACT_DIR: '/data/a' })).toMatchObject({ artifactDir: '/data/a' });
  });

  test.each([
    ['gs://bucket/prefix', 'ARTIFACT_URL: must be s3://bucket/prefix, a file:// URL or a folder path'],
    ['s3://Bad_Bucket/x', 'ARTIFACT_URL: has bucket name "Bad_Bucket": must be 3 to 63 lowercase letters, digits, dots or hyphens'],
    ['s3://bucket/x?region=eu', 'ARTIFACT_URL: must be s3://bucket/prefix, without a query or fragment'],
    ['s3://bucket/a/../b', 'ARTIFACT_URL: has a prefix with a segment starting with "."'],
  ])('%s is refused with the rule', (url, message) => {
    expect(configError({ ARTIFACT_URL: url }).message).toContain(message);
  });

  test('ARTIFACT_URL and ARTIFACT_DIR together are refused', () => {
    expect(configError({ ARTIFACT_URL: 's3://bucket-a/p', ARTIFACT_DIR: '/data' }).message).toContain('ARTIFACT_URL: and ARTIFACT_DIR are both set');
    expect(configError({ AWS_S3_FORCE_PATH_STYLE: 'yes' }).message).toContain('AWS_S3_FORCE_PATH_STYLE: must be true or false');
  });

  test('a worker whose ARTIFACT_URL bucket cannot be reached fails at start, naming ARTIFACT_URL and the cause', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ENDPOINT_URL: 'http://127.0.0.1:1',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_MAX_ATTEMPTS: '1',
    });
    try {
      await expect(runWorker(loadConfig({ ARTIFACT_URL: 's3://artifacts/prod', AWS_S3_FORCE_PATH_STYLE: 'true' }))).rejects.toThrow(
        /^ARTIFACT_URL=s3:\/\/artifacts\/prod: the artifact store cannot be used: .*ECONNREFUSED/,
      );
    } finally {
      for (const name of ['AWS_ENDPOINT_URL', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_MAX_ATTEMPTS']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });
});

describe('a production worker without service settings', () => {
  test('refuses to start instead of running the embedded emulator silently, naming the variable and the way out', async () => {
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      const refusal = runWorker(loadConfig({}));
      await expect(refusal).rejects.toBeInstanceOf(ConfigError);
      await expect(refusal).rejects.toThrow(/RESEARCH_API_BASE_URL: is required in production \(NODE_ENV=production\).*set RESEARCH_SERVICE=emulator/);
    } finally {
      process.env.NODE_ENV = previous;
    }
  });

  test('runs the emulator when asked for on purpose, the service when configured, and anything outside production', () => {
    expect(() => checkWorkerResearchService(loadConfig({}), { NODE_ENV: 'production', RESEARCH_SERVICE: 'emulator' })).not.toThrow();
    expect(() => checkWorkerResearchService(loadConfig(service), { NODE_ENV: 'production' })).not.toThrow();
    expect(() => checkWorkerResearchService(loadConfig({}), { NODE_ENV: 'development' })).not.toThrow();
  });
});
