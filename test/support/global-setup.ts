import { findTemporalServer, PROBE_RESULT_VARIABLE } from './server/discovery';

/**
 * Jest global setup: looks for a real Temporal server once for the whole run, prints why the
 * real-server scenarios are skipped when there is none, and hands the answer to every test file.
 */
export default function globalSetup(): void {
  const server = findTemporalServer();
  process.env[PROBE_RESULT_VARIABLE] = JSON.stringify(server);
  if (!server.available) process.stderr.write(`\nReal-server scenarios skipped: ${server.reason}\n`);
  else process.stderr.write(`\nReal-server scenarios run on: ${JSON.stringify(server.plan)}\n`);
}
