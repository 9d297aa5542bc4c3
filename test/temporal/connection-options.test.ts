import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { Connection } from '@temporalio/client';
import { ConfigError, loadConfig } from '../../src/config';
import { loadIntakeConfig } from '../../src/intake/config';
import { connectionSecurityOptions, loadTemporalConnection } from '../../src/temporal/connection-options';
import { testServer } from '../support/server/test-server';

const INTAKE_KEY = 'ik_0123456789abcdef0123456789abcdef_never_logged';
const API_KEY = 'tcld_profile_api_key_never_logged';
const KEY_PEM = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC_never_logged\n-----END PRIVATE KEY-----\n';

function configError(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('Temporal connection settings (@temporalio/envconfig: TEMPORAL_* variables and temporal.toml profiles)', () => {
  let folder: string;
  let toml: string;
  let warning: jest.SpyInstance;
  beforeEach(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'rp-envconfig-'));
    toml = path.join(folder, 'temporal.toml');
    writeFileSync(path.join(folder, 'client.pem'), 'certificate bytes');
    writeFileSync(path.join(folder, 'client.key'), 'key bytes');
    writeFileSync(
      toml,
      [
        '[profile.default]',
        'address = "localhost:7233"',
        'namespace = "dev"',
        '',
        '[profile.cloud]',
        'address = "research.a1b2c.tmprl.cloud:7233"',
        'namespace = "research.a1b2c"',
        `api_key = "${API_KEY}"`,
        '',
        '[profile.mtls]',
        'address = "temporal.internal:7233"',
        'namespace = "research"',
        '[profile.mtls.tls]',
        `client_cert_path = "${path.join(folder, 'client.pem')}"`,
        `client_key_path = "${path.join(folder, 'client.key')}"`,
        'server_name = "temporal.internal"',
        '',
        '[profile.half]',
        'address = "temporal.internal:7233"',
        '[profile.half.tls]',
        `client_cert_path = "${path.join(folder, 'client.pem')}"`,
        '',
        '[profile.bad]',
        'address = "http://temporal.internal"',
        '',
      ].join('\n'),
    );
    warning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(folder, { recursive: true, force: true });
  });

  test('without variables or a file: localhost:7233, namespace default, no TLS', () => {
    expect(loadConfig({}).temporal).toEqual({ address: 'localhost:7233', addressSet: false, namespace: 'default', taskQueue: 'research-pipelines' });
  });

  test('a profile of TEMPORAL_CONFIG_FILE chosen by TEMPORAL_PROFILE (else "default"); variables override it', () => {
    expect(loadConfig({ TEMPORAL_CONFIG_FILE: toml }).temporal).toMatchObject({ address: 'localhost:7233', addressSet: true, namespace: 'dev' });
    // Messages name where the address came from: the profile's key, or TEMPORAL_ADDRESS when it overrides it.
    expect(loadConfig({ TEMPORAL_CONFIG_FILE: toml }).temporal.addressSource).toBe(`${toml} [profile.default] address`);
    expect(loadConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_ADDRESS: 'other:7233' }).temporal).not.toHaveProperty('addressSource');
    const cloud = loadConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'cloud' });
    expect(cloud.temporal).toMatchObject({ address: 'research.a1b2c.tmprl.cloud:7233', namespace: 'research.a1b2c' });
    expect(connectionSecurityOptions(cloud.temporal.security)).toEqual({ tls: true, apiKey: API_KEY });
    expect(JSON.stringify(cloud)).not.toContain(API_KEY);
    expect(inspect(cloud, { depth: 8 })).not.toContain(API_KEY);
    const overridden = loadConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'cloud', TEMPORAL_NAMESPACE: 'other.a1b2c', TEMPORAL_TLS: 'false' });
    expect(overridden.temporal.namespace).toBe('other.a1b2c');
    // TLS turned off explicitly (a plain-text proxy in front of the cloud) keeps the API key.
    expect(connectionSecurityOptions(overridden.temporal.security)).toEqual({ tls: false, apiKey: API_KEY });
  });

  test('the default file is $XDG_CONFIG_HOME/temporalio/temporal.toml (as the Temporal CLI writes it)', () => {
    const home = path.join(folder, 'config');
    mkdirSync(path.join(home, 'temporalio'), { recursive: true });
    writeFileSync(path.join(home, 'temporalio', 'temporal.toml'), '[profile.default]\naddress = "from-the-default-file:7233"\n');
    expect(loadConfig({ XDG_CONFIG_HOME: home }).temporal.address).toBe('from-the-default-file:7233');
  });

  test('mTLS from a profile: the files are read at connect, a missing one is named with its path', () => {
    const mtls = loadConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'mtls' });
    expect(connectionSecurityOptions(mtls.temporal.security)).toEqual({
      tls: { clientCertPair: { crt: Buffer.from('certificate bytes'), key: Buffer.from('key bytes') }, serverNameOverride: 'temporal.internal' },
    });
    rmSync(path.join(folder, 'client.key'));
    expect(() => connectionSecurityOptions(mtls.temporal.security)).toThrow(
      `Temporal TLS client key (TEMPORAL_TLS_CLIENT_KEY_PATH or tls.client_key_path): cannot read ${path.join(folder, 'client.key')} (ENOENT)`,
    );
  });

  test('certificates given as data (TEMPORAL_TLS_*_DATA): the key never shows in the config', () => {
    const config = loadConfig({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_TLS_CLIENT_CERT_DATA: 'certificate bytes',
      TEMPORAL_TLS_CLIENT_KEY_DATA: KEY_PEM,
      TEMPORAL_TLS_SERVER_CA_CERT_DATA: 'ca bytes',
    });
    expect(JSON.stringify(config)).not.toContain('never_logged');
    expect(inspect(config, { depth: 8 })).not.toContain('never_logged');
    const tls = connectionSecurityOptions(config.temporal.security).tls as {
      clientCertPair: { crt: Uint8Array; key: Uint8Array };
      serverRootCACertificate: Uint8Array;
    };
    expect(Buffer.from(tls.clientCertPair.key).toString()).toBe(KEY_PEM);
    expect(Buffer.from(tls.serverRootCACertificate).toString()).toBe('ca bytes');
  });

  test('gRPC headers from TEMPORAL_GRPC_META_* reach the connection and stay out of the config', () => {
    const config = loadConfig({ TEMPORAL_GRPC_META_X_TENANT: 'tenant-secret-value' });
    expect(connectionSecurityOptions(config.temporal.security)).toEqual({ metadata: { 'x-tenant': 'tenant-secret-value' } });
    expect(JSON.stringify(config)).not.toContain('tenant-secret-value');
  });

  test('bad settings are named with their source and rule, every one at once', () => {
    expect(configError(() => loadConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'bad' })).issues).toEqual([
      { variable: `${toml} [profile.bad] address`, message: 'must be host:port, e.g. localhost:7233' },
    ]);
    expect(configError(() => loadConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'half' })).issues[0]).toEqual({
      variable: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
      message: expect.stringContaining('mTLS needs both a client certificate and its key'),
    });
    expect(configError(() => loadConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'staging' })).issues).toEqual([
      { variable: 'TEMPORAL_PROFILE', message: `profile "staging" is not in ${toml}` },
    ]);
    expect(configError(() => loadConfig({ TEMPORAL_CONFIG_FILE: path.join(folder, 'nope.toml') })).issues).toEqual([
      { variable: 'TEMPORAL_CONFIG_FILE', message: `${path.join(folder, 'nope.toml')} does not exist` },
    ]);
    writeFileSync(toml, '[profile.default\naddress = 1');
    expect(configError(() => loadConfig({ TEMPORAL_CONFIG_FILE: toml })).issues[0]?.variable).toBe('TEMPORAL_CONFIG_FILE');
    const both = configError(() => loadConfig({ TEMPORAL_ADDRESS: 'http://x', TEMPORAL_API_KEY: 'has spaces in it', LOG_LEVEL: 'loud' }));
    expect(both.issues.map((issue) => issue.variable)).toEqual(['TEMPORAL_ADDRESS', 'TEMPORAL_API_KEY', 'LOG_LEVEL']);
    expect(both.message).not.toContain('has spaces');
    expect(configError(() => loadConfig({ TEMPORAL_TLS: 'yes' })).issues).toEqual([{ variable: 'TEMPORAL_TLS', message: 'must be true or false' }]);
  });

  test('the old variable names work for a release, with one warning naming the new one', async () => {
    await jest.isolateModulesAsync(async () => {
      // A fresh module: its warnings were not given yet in this process.
      const fresh = await import('../../src/temporal/connection-options');
      const old = {
        TEMPORAL_TLS_CERT_PATH: path.join(folder, 'client.pem'),
        TEMPORAL_TLS_KEY_PATH: path.join(folder, 'client.key'),
        TEMPORAL_TLS_CA_PATH: path.join(folder, 'client.pem'),
      };
      const first = fresh.loadTemporalConnection(old);
      fresh.loadTemporalConnection(old);
      expect(first.connection?.security?.tls).toEqual({
        clientCert: { path: old.TEMPORAL_TLS_CERT_PATH },
        clientKey: { path: old.TEMPORAL_TLS_KEY_PATH },
        serverCACert: { path: old.TEMPORAL_TLS_CA_PATH },
      });
      expect(warning.mock.calls.map((call) => String(call[0]))).toEqual([
        "TEMPORAL_TLS_CERT_PATH is renamed TEMPORAL_TLS_CLIENT_CERT_PATH (Temporal's standard name); the old name stops working in the next release",
        "TEMPORAL_TLS_KEY_PATH is renamed TEMPORAL_TLS_CLIENT_KEY_PATH (Temporal's standard name); the old name stops working in the next release",
        "TEMPORAL_TLS_CA_PATH is renamed TEMPORAL_TLS_SERVER_CA_CERT_PATH (Temporal's standard name); the old name stops working in the next release",
      ]);
      expect(warning.mock.calls[0]?.[1]).toEqual({ type: 'DeprecationWarning', code: 'RP_TEMPORAL_TLS_CERT_PATH' });
      // Old and new names that disagree are refused: which one was meant is not ours to guess.
      expect(
        fresh.loadTemporalConnection({ TEMPORAL_TLS_CERT_PATH: '/a.pem', TEMPORAL_TLS_CLIENT_CERT_PATH: '/b.pem', TEMPORAL_TLS_CLIENT_KEY_PATH: '/k.pem' })
          .issues,
      ).toEqual([
        {
          variable: 'TEMPORAL_TLS_CERT_PATH',
          message: 'is the old name of TEMPORAL_TLS_CLIENT_CERT_PATH, which is set to another value: keep only TEMPORAL_TLS_CLIENT_CERT_PATH',
        },
      ]);
    });
  });

  test('the intake reads the same settings (it could not reach a TLS or API-key Temporal before)', () => {
    const intake = loadIntakeConfig({ INTAKE_KEY, TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'cloud' });
    expect(intake.temporal).toMatchObject({ address: 'research.a1b2c.tmprl.cloud:7233', namespace: 'research.a1b2c', taskQueue: 'research-pipelines' });
    expect(connectionSecurityOptions(intake.temporal.security)).toEqual({ tls: true, apiKey: API_KEY });
    expect(JSON.stringify(intake)).not.toContain(API_KEY);
    expect(configError(() => loadIntakeConfig({ INTAKE_KEY, TEMPORAL_ADDRESS: 'nope' })).issues).toEqual([
      { variable: 'TEMPORAL_ADDRESS', message: 'must be host:port, e.g. localhost:7233' },
    ]);
  });

  test('empty variables count as unset, as elsewhere in the configuration', () => {
    expect(loadTemporalConnection({ TEMPORAL_ADDRESS: '', TEMPORAL_NAMESPACE: ' ', TEMPORAL_API_KEY: '', TEMPORAL_TLS_CERT_PATH: '' })).toEqual({
      connection: { address: 'localhost:7233', addressSet: false, namespace: 'default' },
      issues: [],
    });
    expect(warning).not.toHaveBeenCalled();
  });
});

const server = testServer();

(server.available ? describe : describe.skip)(`a temporal.toml profile on the real server${server.available ? '' : ` [skipped: ${server.reason}]`}`, () => {
  test('connects to the address and namespace of the profile', async () => {
    if (!server.available) return;
    const folder = mkdtempSync(path.join(tmpdir(), 'rp-envconfig-'));
    try {
      const toml = path.join(folder, 'temporal.toml');
      writeFileSync(toml, `[profile.local]\naddress = "${server.address}"\nnamespace = "${server.namespace}"\n`);
      const { temporal } = loadConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'local' });
      const connection = await Connection.connect({ address: temporal.address, ...connectionSecurityOptions(temporal.security) });
      try {
        const { namespaceInfo } = await connection.workflowService.describeNamespace({ namespace: temporal.namespace });
        expect(namespaceInfo?.name).toBe(server.namespace);
      } finally {
        await connection.close();
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
