import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/common/lib/internal-non-workflow';
import type { TemporalSecurityConfig } from '../config';

/** The TLS and API key options `Connection.connect` and `NativeConnection.connect` share. */
export interface ConnectionSecurityOptions {
  tls?: TLSConfig | boolean;
  apiKey?: string;
}

/**
 * Connection options for Temporal Cloud or a TLS cluster: an API key (TLS on), or mTLS from the
 * certificate and key files (read here, so a missing file fails at start with its path).
 */
export function connectionSecurityOptions(security: TemporalSecurityConfig | undefined): ConnectionSecurityOptions {
  if (!security) return {};
  const read = (variable: string, file: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new Error(`${variable}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`, { cause: error });
    }
  };
  const files = security.tls;
  const tls: TLSConfig | undefined = files ? {
    ...(files.certPath && files.keyPath ? { clientCertPair: { crt: read('TEMPORAL_TLS_CERT_PATH', files.certPath), key: read('TEMPORAL_TLS_KEY_PATH', files.keyPath) } } : {}),
    ...(files.caPath ? { serverRootCACertificate: read('TEMPORAL_TLS_CA_PATH', files.caPath) } : {}),
    ...(files.serverName ? { serverNameOverride: files.serverName } : {}),
  } : undefined;
  return { ...(tls ? { tls: Object.keys(tls).length > 0 ? tls : true } : {}), ...(security.apiKey ? { apiKey: security.apiKey } : {}) };
}
