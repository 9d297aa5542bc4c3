import { existsSync, readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/common/lib/internal-non-workflow';
import { loadClientConfigProfile, toClientOptions, type ClientConfigProfile, type ClientConfigTLS, type ConfigDataSource } from '@temporalio/envconfig';

/** One bad setting and the rule it breaks (the same shape as the configuration's issues). */
export interface ConnectionIssue {
  variable: string;
  message: string;
}

/**
 * How to reach Temporal beyond the address: an API key (non-enumerable), TLS (client certificate and
 * key, server CA, server name; `disabled` turns TLS off) and gRPC headers (non-enumerable), as
 * `@temporalio/envconfig` reads them from the environment and `temporal.toml`.
 */
export interface TemporalSecurityConfig {
  readonly apiKey?: string;
  tls?: ClientConfigTLS;
  readonly grpcMeta?: Record<string, string>;
}

/** The Temporal connection settings: where, which namespace, and how. */
export interface TemporalConnectionConfig {
  address: string;
  /** An address was given (variable or profile); else `address` is the default localhost:7233. */
  addressSet: boolean;
  /** Where a profile's address came from (`<file> [profile.<name>] address`); absent when TEMPORAL_ADDRESS gave it or none was given. */
  addressSource?: string;
  namespace: string;
  security?: TemporalSecurityConfig;
}

/**
 * The project's former names of standard variables, and the standard name each now reads as. The old
 * names work for one more release, with a warning naming the new one.
 */
export const RENAMED_TEMPORAL_VARIABLES: Readonly<Record<string, string>> = {
  TEMPORAL_TLS_CERT_PATH: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
  TEMPORAL_TLS_KEY_PATH: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
  TEMPORAL_TLS_CA_PATH: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
};

const warned = new Set<string>();

/** Warns once per process and old name (Node's DeprecationWarning on stderr; `--no-deprecation` silences it). */
function warnRenamed(old: string, current: string): void {
  if (warned.has(old)) return;
  warned.add(old);
  process.emitWarning(`${old} is renamed ${current} (Temporal's standard name); the old name stops working in the next release`, {
    type: 'DeprecationWarning',
    code: `RP_${old}`,
  });
}

const HOST_PORT = /^[^\s/]+:\d{1,5}$/;
const PRINTABLE = /^[\x21-\x7e]+$/;
const TLS_FIELDS = [
  ['clientCert', 'client certificate', 'CLIENT_CERT', 'client_cert'],
  ['clientKey', 'client key', 'CLIENT_KEY', 'client_key'],
  ['serverCACert', 'server CA certificate', 'SERVER_CA_CERT', 'server_ca_cert'],
] as const;

/**
 * Reads the Temporal connection the standard way (`@temporalio/envconfig`, as the Temporal CLI and SDKs
 * do): the profile TEMPORAL_PROFILE (default "default") of TEMPORAL_CONFIG_FILE (default
 * ~/.config/temporalio/temporal.toml, when it exists), overridden by TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * TEMPORAL_API_KEY, TEMPORAL_TLS, TEMPORAL_TLS_CLIENT_CERT_PATH|_DATA, TEMPORAL_TLS_CLIENT_KEY_PATH|_DATA,
 * TEMPORAL_TLS_SERVER_CA_CERT_PATH|_DATA, TEMPORAL_TLS_SERVER_NAME and TEMPORAL_GRPC_META_*. Empty
 * variables count as unset. Returns the settings, or every bad one with its rule (never a value).
 */
export function loadTemporalConnection(
  env: Record<string, string | undefined>,
): { connection: TemporalConnectionConfig; issues: [] } | { connection?: undefined; issues: ConnectionIssue[] } {
  const issues: ConnectionIssue[] = [];
  // Docker env files and shells leave variables set but empty; that means "not set" (a gRPC header's empty value removes it, as the standard says).
  const standard: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && (value.trim() !== '' || name.startsWith('TEMPORAL_GRPC_META_'))) standard[name] = value;
  }
  for (const [old, current] of Object.entries(RENAMED_TEMPORAL_VARIABLES)) {
    const value = standard[old];
    if (value === undefined) continue;
    delete standard[old];
    warnRenamed(old, current);
    if (standard[current] !== undefined && standard[current] !== value)
      issues.push({ variable: old, message: `is the old name of ${current}, which is set to another value: keep only ${current}` });
    standard[current] ??= value;
  }
  const file = standard.TEMPORAL_CONFIG_FILE;
  if (file !== undefined && !existsSync(file)) issues.push({ variable: 'TEMPORAL_CONFIG_FILE', message: `${file} does not exist` });
  if (standard.TEMPORAL_TLS !== undefined && !/^(true|false|1|0)$/.test(standard.TEMPORAL_TLS))
    issues.push({ variable: 'TEMPORAL_TLS', message: 'must be true or false' });
  if (issues.length > 0) return { issues };

  const profileName = standard.TEMPORAL_PROFILE ?? 'default';
  // Where a setting came from, for messages: the variable when set, else the key of the profile.
  const origin = (variable: string, key: string): string =>
    standard[variable] !== undefined ? variable : `${file ?? 'temporal.toml'} [profile.${profileName}] ${key}`;
  let profile: ClientConfigProfile;
  try {
    profile = loadClientConfigProfile({ overrideEnvVars: standard });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/^Profile '.*' not found/.test(message))
      return { issues: [{ variable: 'TEMPORAL_PROFILE', message: `profile "${profileName}" is not in ${file ?? 'the temporal.toml file'}` }] };
    const both = /Cannot specify both (\w+)_path and \w+_data/.exec(message)?.[1];
    if (both) {
      const [, what = both, upper] = TLS_FIELDS.find(([, , , key]) => key === both) ?? [];
      return {
        issues: [
          {
            variable: upper ? `TEMPORAL_TLS_${upper}_PATH` : 'TEMPORAL_TLS',
            message: `give the ${what} as a path or as data, not both (variables or ${file ?? 'temporal.toml'} [profile.${profileName}] tls)`,
          },
        ],
      };
    }
    return { issues: [{ variable: 'TEMPORAL_CONFIG_FILE', message: `cannot read ${file ?? 'temporal.toml'}: ${message}` }] };
  }

  const address = profile.address?.trim();
  if (address !== undefined && !HOST_PORT.test(address))
    issues.push({ variable: origin('TEMPORAL_ADDRESS', 'address'), message: 'must be host:port, e.g. localhost:7233' });
  if (profile.apiKey !== undefined && !PRINTABLE.test(profile.apiKey))
    issues.push({ variable: origin('TEMPORAL_API_KEY', 'api_key'), message: 'must be printable ASCII without spaces' });
  const tls = profile.tls;
  if (tls && !tls.disabled && Boolean(tls.clientCert) !== Boolean(tls.clientKey)) {
    const missing = tls.clientCert ? 'CLIENT_KEY' : 'CLIENT_CERT';
    issues.push({
      variable: `TEMPORAL_TLS_${missing}_PATH`,
      message: `mTLS needs both a client certificate and its key (TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH, the _DATA variables, or tls.client_cert_path and tls.client_key_path in ${file ?? 'temporal.toml'} [profile.${profileName}])`,
    });
  }
  if (issues.length > 0) return { issues };

  const hasSecurity = profile.apiKey !== undefined || tls !== undefined || (profile.grpcMeta !== undefined && Object.keys(profile.grpcMeta).length > 0);
  const connection: TemporalConnectionConfig = {
    address: address ?? 'localhost:7233',
    addressSet: address !== undefined,
    ...(address !== undefined && standard.TEMPORAL_ADDRESS === undefined ? { addressSource: origin('TEMPORAL_ADDRESS', 'address') } : {}),
    namespace: profile.namespace?.trim() || 'default',
    ...(hasSecurity ? { security: securityOf(profile) } : {}),
  };
  return { connection, issues: [] };
}

/** The profile's security settings, with the API key, key data and gRPC headers non-enumerable (never logged or serialised). */
function securityOf(profile: ClientConfigProfile): TemporalSecurityConfig {
  const security: TemporalSecurityConfig = {};
  if (profile.tls) {
    const { clientKey, ...tls } = profile.tls;
    security.tls = tls;
    if (clientKey) Object.defineProperty(tls, 'clientKey', { value: clientKey, enumerable: 'path' in clientKey });
  }
  if (profile.apiKey !== undefined) Object.defineProperty(security, 'apiKey', { value: profile.apiKey, enumerable: false });
  if (profile.grpcMeta !== undefined && Object.keys(profile.grpcMeta).length > 0)
    Object.defineProperty(security, 'grpcMeta', { value: profile.grpcMeta, enumerable: false });
  return security;
}

/** The TLS, API key and header options `Connection.connect` and `NativeConnection.connect` share. */
export interface ConnectionSecurityOptions {
  tls?: TLSConfig | boolean;
  apiKey?: string;
  metadata?: NonNullable<ReturnType<typeof toClientOptions>['connectionOptions']['metadata']>;
}

/**
 * Connection options for Temporal Cloud or a TLS cluster (envconfig's `toClientOptions`: an API key turns
 * TLS on unless it is disabled). Certificate and key files are read here, so a missing one fails at start
 * naming the setting and the path.
 */
export function connectionSecurityOptions(security: TemporalSecurityConfig | undefined): ConnectionSecurityOptions {
  if (!security) return {};
  let tls = security.tls;
  if (tls && !tls.disabled) {
    const read: Partial<Record<(typeof TLS_FIELDS)[number][0], ConfigDataSource>> = {};
    for (const [field, what, upper, key] of TLS_FIELDS) {
      const source = tls[field];
      if (!source || !('path' in source)) continue;
      try {
        read[field] = { data: readFileSync(source.path) };
      } catch (error) {
        throw new Error(
          `Temporal TLS ${what} (TEMPORAL_TLS_${upper}_PATH or tls.${key}_path): cannot read ${source.path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
          { cause: error },
        );
      }
    }
    tls = { ...tls, ...(tls.clientKey ? { clientKey: tls.clientKey } : {}), ...read };
  }
  const { connectionOptions } = toClientOptions({
    ...(security.apiKey !== undefined ? { apiKey: security.apiKey } : {}),
    ...(tls ? { tls } : {}),
    ...(security.grpcMeta ? { grpcMeta: security.grpcMeta } : {}),
  });
  return {
    ...(connectionOptions.tls !== undefined && connectionOptions.tls !== null ? { tls: connectionOptions.tls } : {}),
    ...(connectionOptions.apiKey !== undefined ? { apiKey: connectionOptions.apiKey } : {}),
    ...(connectionOptions.metadata ? { metadata: connectionOptions.metadata } : {}),
  };
}
