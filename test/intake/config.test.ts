import { inspect } from 'node:util';
import { ConfigError } from '../../src/config';
import { loadIntakeConfig } from '../../src/intake';

const KEY = 'ik_0123456789abcdef0123456789abcdef_secret';
const TOKENS = 'tok_first_0123456789abcdef, tok_second_0123456789abcdef';

function issuesOf(env: Record<string, string>): Array<{ variable: string; message: string }> {
  try {
    loadIntakeConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.issues];
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadIntakeConfig', () => {
  test("opens the worker's store: ARTIFACT_URL=s3://... gives the bucket, ARTIFACT_DIR the folder, and both at once are refused", () => {
    expect(loadIntakeConfig({ INTAKE_KEY: KEY, ARTIFACT_URL: 's3://research-artifacts/prod', AWS_S3_FORCE_PATH_STYLE: 'true' }).artifactStore).toEqual({
      kind: 's3',
      url: 's3://research-artifacts/prod',
      bucket: 'research-artifacts',
      prefix: 'prod/',
      forcePathStyle: true,
    });
    const local = loadIntakeConfig({ INTAKE_KEY: KEY, ARTIFACT_DIR: '/srv/artifacts' });
    expect(local.artifactDir).toBe('/srv/artifacts');
    expect(local.artifactStore).toBeUndefined();
    expect(issuesOf({ INTAKE_KEY: KEY, ARTIFACT_URL: 's3://bucket/p', ARTIFACT_DIR: '/srv/artifacts' })).toEqual([
      expect.objectContaining({ variable: 'ARTIFACT_URL', message: expect.stringContaining('both set') }),
    ]);
    expect(issuesOf({ INTAKE_KEY: KEY, ARTIFACT_URL: 'ftp://bucket/p' })).toEqual([expect.objectContaining({ variable: 'ARTIFACT_URL' })]);
  });

  test('reads every variable; the key and tokens never show when logged', () => {
    const config = loadIntakeConfig({
      INTAKE_KEY: KEY,
      INTAKE_TOKENS: TOKENS,
      INTAKE_BODY_LIMIT_BYTES: '65536',
      INTAKE_PIPELINES_DIR: '/srv/pipelines',
      INTAKE_TLS_CERT: '/tls/cert.pem',
      INTAKE_TLS_KEY: '/tls/key.pem',
      TEMPORAL_UI_URL: 'http://localhost:8233/',
      INTAKE_WEBHOOK_TOLERANCE_SECONDS: '120',
    });
    expect(config).toMatchObject({
      bodyLimitBytes: 65_536,
      pipelinesDir: '/srv/pipelines',
      tls: { certFile: '/tls/cert.pem', keyFile: '/tls/key.pem' },
      temporalUiUrl: 'http://localhost:8233',
      webhookToleranceSeconds: 120,
    });
    expect(config.intakeKey).toBe(KEY);
    expect(config.tokens).toEqual(['tok_first_0123456789abcdef', 'tok_second_0123456789abcdef']);
    for (const shown of [JSON.stringify(config), inspect(config, { depth: 5 })]) {
      expect(shown).not.toContain(KEY);
      expect(shown).not.toContain('tok_first');
    }
  });

  test.each([
    [{}, 'INTAKE_KEY', 'is required'],
    [{ INTAKE_KEY: 'short' }, 'INTAKE_KEY', 'at least 32 characters'],
    [{ INTAKE_KEY: KEY, INTAKE_TOKENS: 'tiny' }, 'INTAKE_TOKENS', 'at least 16 characters'],
    [{ INTAKE_KEY: KEY, INTAKE_TLS_CERT: '/tls/cert.pem' }, 'INTAKE_TLS_KEY', 'give both or neither'],
    [{ INTAKE_KEY: KEY, INTAKE_BODY_LIMIT_BYTES: 'lots' }, 'INTAKE_BODY_LIMIT_BYTES', 'whole number of bytes'],
    [{ INTAKE_KEY: KEY, INTAKE_BODY_LIMIT_BYTES: '10' }, 'INTAKE_BODY_LIMIT_BYTES', 'at least 1024'],
  ])('%j is refused, naming %s and the rule', (env, variable, rule) => {
    expect(issuesOf(env)).toEqual([expect.objectContaining({ variable, message: expect.stringContaining(rule) })]);
  });
});
