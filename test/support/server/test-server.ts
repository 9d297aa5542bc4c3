/** Where global setup leaves the run's server for the test files (they run in other processes). */
export const SERVER_VARIABLE = 'RP_TEST_TEMPORAL_SERVER';

/** The run's server, or why there is none. */
export type TestServerInfo =
  | {
      readonly available: true;
      readonly address: string;
      readonly namespace: string;
      /** The dev server's Temporal UI, when the run started one. */ readonly uiUrl?: string;
    }
  | { readonly available: false; readonly reason: string };

/** The server global setup found, read in a test file. */
export function testServer(env: NodeJS.ProcessEnv = process.env): TestServerInfo {
  const raw = env[SERVER_VARIABLE];
  if (!raw) return { available: false, reason: 'the Jest global setup did not run (run the suite through jest.config.js)' };
  return JSON.parse(raw) as TestServerInfo;
}
