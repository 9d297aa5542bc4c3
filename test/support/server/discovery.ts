import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import testingPackage from '@temporalio/testing/lib/pkg';

/** How to reach a Temporal server, in the order they are tried. */
export type ServerPlan =
  | { readonly kind: 'address'; readonly address: string; readonly namespace: string }
  | { readonly kind: 'cli'; readonly path: string }
  | { readonly kind: 'download' };

/** A server plan, or the one reason no server can be had. */
export type ServerAvailability =
  | { readonly available: true; readonly plan: ServerPlan }
  | { readonly available: false; readonly reason: string };

/** Default bound on the SDK's dev server download (override with TEMPORAL_DOWNLOAD_TIMEOUT_MS). */
const DEFAULT_DOWNLOAD_TIMEOUT_MS = 60_000;
// The SDK keeps a downloaded dev server for a day (its default cache TTL), then fetches it again.
const DOWNLOAD_CACHE_TTL_MS = 24 * 60 * 60 * 1000;

// Starts and stops a dev server through the SDK, which downloads the binary on first use.
const DOWNLOAD_PROBE = `
const { TestWorkflowEnvironment } = require(process.argv[1]);
TestWorkflowEnvironment.createLocal()
  .then((env) => env.teardown())
  .then(() => process.exit(0), (error) => { process.stderr.write(String((error && error.message) || error)); process.exit(1); });
`;

let memo: ServerAvailability | undefined;

/**
 * Decides, synchronously so that test definition can skip a block, which server scenarios run
 * against: TEMPORAL_ADDRESS (a running service, namespace TEMPORAL_NAMESPACE or "default"), else
 * TEMPORAL_CLI_PATH (an existing `temporal` binary), else the SDK's own dev server download (tried
 * once per process in a child process, bounded by TEMPORAL_DOWNLOAD_TIMEOUT_MS). TEMPORAL_SKIP_SERVER
 * turns the server runs off.
 */
export function findTemporalServer(env: NodeJS.ProcessEnv = process.env): ServerAvailability {
  memo ??= env[PROBE_RESULT_VARIABLE] ? (JSON.parse(env[PROBE_RESULT_VARIABLE]) as ServerAvailability) : decide(env);
  return memo;
}

/** Where Jest's global setup leaves the answer, so test files (in worker processes) do not probe again. */
export const PROBE_RESULT_VARIABLE = 'RP_TEMPORAL_SERVER_PROBE';

function decide(env: NodeJS.ProcessEnv): ServerAvailability {
  if (env.TEMPORAL_SKIP_SERVER) return { available: false, reason: 'TEMPORAL_SKIP_SERVER is set' };
  if (env.TEMPORAL_ADDRESS) {
    return { available: true, plan: { kind: 'address', address: env.TEMPORAL_ADDRESS, namespace: env.TEMPORAL_NAMESPACE || 'default' } };
  }
  if (env.TEMPORAL_CLI_PATH) {
    try {
      accessSync(env.TEMPORAL_CLI_PATH, constants.X_OK);
      return { available: true, plan: { kind: 'cli', path: env.TEMPORAL_CLI_PATH } };
    } catch {
      return { available: false, reason: `TEMPORAL_CLI_PATH=${env.TEMPORAL_CLI_PATH} is not an executable file` };
    }
  }
  if (hasFreshDownload()) return { available: true, plan: { kind: 'download' } };
  const timeoutMs = Number(env.TEMPORAL_DOWNLOAD_TIMEOUT_MS) || DEFAULT_DOWNLOAD_TIMEOUT_MS;
  const probe = spawnSync(process.execPath, ['-e', DOWNLOAD_PROBE, require.resolve('@temporalio/testing')], {
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  if (probe.status === 0) return { available: true, plan: { kind: 'download' } };
  const why = probe.error ? `gave up after ${timeoutMs} ms (${probe.error.message})` : firstLine(probe.stderr) || `exit ${probe.status}`;
  return {
    available: false,
    reason: `no Temporal server: TEMPORAL_ADDRESS and TEMPORAL_CLI_PATH are unset and the SDK's dev server download failed: ${why}`,
  };
}

// Where sdk-core caches the dev server it downloads for this SDK version (see its ephemeral_server).
function hasFreshDownload(): boolean {
  const cached = path.join(os.tmpdir(), `temporal-sdk-typescript-${testingPackage.version}`);
  try {
    return Date.now() - statSync(cached).mtimeMs < DOWNLOAD_CACHE_TTL_MS;
  } catch {
    return false;
  }
}

// The SDK's download error repeats itself with the full URL at every level; keep it readable.
function firstLine(text: string | undefined): string {
  const line = (text ?? '').trim().split('\n')[0] ?? '';
  const parts = line.replace(/\s*\(https?:\/\/[^)]*\)/g, '').split(': ');
  return parts.filter((part, index) => part !== parts[index - 1]).join(': ');
}
