import { defineSearchAttributeKey } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { ServerPlan } from './discovery';
import { registerSearchAttributes, type SearchAttributeDeclarations } from '../../../src/register-search-attributes';

export type { SearchAttributeDeclarations };

/** A connected server: the SDK's test environment and the namespace scenarios run in. */
export interface ServerConnection {
  readonly env: TestWorkflowEnvironment;
  readonly namespace: string;
}

const CONNECT_TIMEOUT_MS = 15_000;
const START_TIMEOUT_MS = 60_000;

let shared: Promise<ServerConnection> | undefined;
let users = 0;

/**
 * Connects to (or starts) the planned server once per test file and registers the declared search
 * attributes; pair each call with {@link releaseServer}. The last release tears the server down.
 */
export async function acquireServer(plan: ServerPlan, searchAttributes: SearchAttributeDeclarations = {}): Promise<ServerConnection> {
  users += 1;
  shared ??= connect(plan, searchAttributes);
  const connection = await shared;
  await ensureSearchAttributes(connection, searchAttributes);
  return connection;
}

/** Releases one {@link acquireServer}; tears the environment down when nobody uses it. */
export async function releaseServer(): Promise<void> {
  users -= 1;
  if (users > 0 || !shared) return;
  const connection = shared;
  shared = undefined;
  await (await connection.catch(() => undefined))?.env.teardown();
}

async function connect(plan: ServerPlan, searchAttributes: SearchAttributeDeclarations): Promise<ServerConnection> {
  quietRuntime();
  const keys = Object.entries(searchAttributes).map(([name, type]) => defineSearchAttributeKey(name, type));
  switch (plan.kind) {
    case 'address': {
      const env = await bounded(
        TestWorkflowEnvironment.createFromExistingServer({ address: plan.address, namespace: plan.namespace }),
        CONNECT_TIMEOUT_MS,
        `connecting to the Temporal server at TEMPORAL_ADDRESS=${plan.address}`,
      );
      return { env, namespace: plan.namespace };
    }
    case 'cli': {
      const server = { executable: { type: 'existing-path' as const, path: plan.path }, searchAttributes: keys };
      const env = await bounded(TestWorkflowEnvironment.createLocal({ server }), START_TIMEOUT_MS, `starting ${plan.path} as a dev server`);
      return { env, namespace: 'default' };
    }
    case 'download': {
      const env = await bounded(TestWorkflowEnvironment.createLocal({ server: { searchAttributes: keys } }), START_TIMEOUT_MS, 'starting the SDK dev server');
      return { env, namespace: 'default' };
    }
  }
}

// createLocal registers search attributes only at start; a later scenario block may need more, and
// an existing server may not have them at all.
async function ensureSearchAttributes({ env, namespace }: ServerConnection, wanted: SearchAttributeDeclarations): Promise<void> {
  if (Object.keys(wanted).length > 0) await registerSearchAttributes(env.connection, namespace, wanted);
}

// Rejects after `ms`; an environment that still arrives later is torn down so no server leaks.
async function bounded(start: Promise<TestWorkflowEnvironment>, ms: number, what: string): Promise<TestWorkflowEnvironment> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new Error(`${what} did not finish within ${ms} ms`));
    }, ms);
  });
  start.then((env) => (timedOut ? env.teardown() : undefined)).catch(() => undefined);
  try {
    return await Promise.race([start, timeout]);
  } catch (error) {
    if (timedOut) throw error;
    throw new Error(`${what} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

// The default runtime logs every worker state change at INFO; scenario output only needs warnings.
function quietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Already installed or instantiated (another block, or the test's own choice): keep it.
  }
}
