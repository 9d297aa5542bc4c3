/**
 * Finding or starting a Temporal server for `rp dev`, the tests and the benchmarks. Starting a dev server
 * loads `@temporalio/testing`, so production code (the worker, the intake, the package entry) never
 * imports this file: it connects with `connect.ts`.
 */
import { defineSearchAttributeKey } from '@temporalio/common';
import { TestWorkflowEnvironment, type LocalTestWorkflowEnvironmentOptions } from '@temporalio/testing';
import type { SearchAttributeDeclarations } from '../register-search-attributes';
import { RESEARCH_SEARCH_ATTRIBUTES } from '../workflows/search-attributes';
import { isExecutable, onPath, projectBinaries, runInstallScript } from './binaries';
import { bounded, connectTemporal, NoTemporalServerError, reason, registerWanted, type TemporalServer } from './connect';

export { connectTemporal, connectWorkerTemporal, NoTemporalServerError, type TemporalServer } from './connect';

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
    const found = await attempt(`TEMPORAL_ADDRESS=${env.TEMPORAL_ADDRESS}`, () =>
      connectTemporal(env.TEMPORAL_ADDRESS!, namespace, searchAttributes, 'TEMPORAL_ADDRESS', log),
    );
    if (found) return found;
    throw new NoTemporalServerError(tried);
  }
  const devServer = {
    searchAttributes,
    ui: options.ui ?? false,
    extraArgs: options.devServerArgs ?? [],
    log,
    ...(options.devServerDatabase ? { dbFilename: options.devServerDatabase } : {}),
  };
  const start = (way: string, executable?: string) => attempt(way, () => startDevServer({ ...devServer, executable, source: way }));
  if (env.TEMPORAL_CLI_PATH) {
    const cli = env.TEMPORAL_CLI_PATH;
    const found = isExecutable(cli)
      ? await start(`TEMPORAL_CLI_PATH=${cli}`, cli)
      : (tried.push(`TEMPORAL_CLI_PATH=${cli}: not an executable file`), undefined);
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
