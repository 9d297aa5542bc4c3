import { openTemporalServer, PRECISE_TIMER_ARGS, type TemporalServer } from '../../src/temporal/server';
import { RESEARCH_SEARCH_ATTRIBUTES } from '../../src/workflows/search-attributes';
import { SERVER_VARIABLE, type TestServerInfo } from './server/test-server';

/** The server this run started (global setup and teardown share the process). */
export const running: { server?: TemporalServer } = ((globalThis as { __rpTemporal?: { server?: TemporalServer } }).__rpTemporal ??= {});

/**
 * Jest global setup: finds or starts one Temporal server for the whole run (see openTemporalServer;
 * as a last resort it installs the project's binaries, like `rp dev`) and hands its address to every
 * test file. Without a server the workflow scenarios cannot run: under CI that fails the run, elsewhere
 * they are skipped with the reason printed.
 */
export default async function globalSetup(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  let info: TestServerInfo;
  try {
    const server = await openTemporalServer({
      allowInstall: true,
      ui: true,
      searchAttributes: RESEARCH_SEARCH_ATTRIBUTES,
      devServerArgs: PRECISE_TIMER_ARGS,
      log,
    });
    running.server = server;
    info = { available: true, address: server.address, namespace: server.namespace, ...(server.uiUrl ? { uiUrl: server.uiUrl } : {}) };
    log(`\nWorkflow scenarios run on the Temporal server at ${server.address} (${server.source})`);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (process.env.CI) throw new Error(`CI needs a real Temporal server for the workflow scenarios: ${reason}`, { cause: error });
    info = { available: false, reason };
    log(`\nWorkflow scenarios skipped: ${reason}`);
  }
  process.env[SERVER_VARIABLE] = JSON.stringify(info);
}
