import { TestWorkflowEnvironment } from '@temporalio/testing';
import { registerSearchAttributes, type SearchAttributeDeclarations } from '../../../src/register-search-attributes';
import { installTestRuntime } from '../test-logger';

/** A connection to the run's server: the SDK's test environment and the namespace scenarios run in. */
export interface ServerConnection {
  readonly env: TestWorkflowEnvironment;
  readonly namespace: string;
}

let shared: Promise<ServerConnection> | undefined;
let users = 0;

/**
 * Connects to the run's server once per test file and registers the declared search attributes;
 * pair each call with {@link releaseServer}. The last release closes the connection.
 */
export async function acquireServer(address: string, namespace: string, searchAttributes: SearchAttributeDeclarations = {}): Promise<ServerConnection> {
  users += 1;
  shared ??= connect(address, namespace);
  const connection = await shared;
  if (Object.keys(searchAttributes).length > 0) await registerSearchAttributes(connection.env.connection, namespace, searchAttributes);
  return connection;
}

/** Releases one {@link acquireServer}; closes the connection when nobody uses it. */
export async function releaseServer(): Promise<void> {
  users -= 1;
  if (users > 0 || !shared) return;
  const connection = shared;
  shared = undefined;
  await (await connection.catch(() => undefined))?.env.teardown();
}

async function connect(address: string, namespace: string): Promise<ServerConnection> {
  // Scenario output only needs warnings, redacted as a real worker's are (no task tokens or secrets).
  installTestRuntime();
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address, namespace });
  return { env, namespace };
}
