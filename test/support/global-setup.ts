import { openTemporalServer, PRECISE_TIMER_ARGS, type TemporalServer } from '../../src/temporal/server';
import { RESEARCH_SEARCH_ATTRIBUTES } from '../../src/workflows/search-attributes';
import { SERVER_VARIABLE, type TestServerInfo } from './server/test-server';
import { startSeaweedFs, STORE_VARIABLE, weedBinary, type SeaweedFs, type TestStoreInfo } from './seaweedfs';

/** The servers this run started (global setup and teardown share the process). */
export const running: { server?: TemporalServer; store?: SeaweedFs } = ((
  globalThis as { __rpTemporal?: { server?: TemporalServer; store?: SeaweedFs } }
).__rpTemporal ??= {});

/**
 * Starts SeaweedFS (the S3 store's tests) without waiting for it: it answers about 12 s later, while
 * the Temporal server starts and the first test files run; the files that use it wait (`openTestBucket`).
 * Not installed: under CI that fails the run, elsewhere those tests are skipped with the reason printed.
 */
async function startStore(log: (line: string) => void): Promise<TestStoreInfo> {
  const weed = weedBinary();
  if (!weed) {
    const reason = 'SeaweedFS is not installed (run npm run store:install)';
    if (process.env.CI) throw new Error(`CI needs SeaweedFS for the S3 artifact store's tests: ${reason}`);
    log(`S3 store tests skipped: ${reason}`);
    return { available: false, reason };
  }
  running.store = await startSeaweedFs(weed);
  return running.store.info;
}

/**
 * Jest global setup: finds or starts one Temporal server for the whole run (see openTemporalServer;
 * as a last resort it installs the project's binaries, like `rp dev`) and hands its address to every
 * test file. Without a server the workflow scenarios cannot run: under CI that fails the run, elsewhere
 * they are skipped with the reason printed.
 */
export default async function globalSetup(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  process.env[STORE_VARIABLE] = JSON.stringify(await startStore(log));
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
    if (process.env.CI) await running.store?.close();
    if (process.env.CI) throw new Error(`CI needs a real Temporal server for the workflow scenarios: ${reason}`, { cause: error });
    info = { available: false, reason };
    log(`\nWorkflow scenarios skipped: ${reason}`);
  }
  process.env[SERVER_VARIABLE] = JSON.stringify(info);
}
