import { Connection } from '@temporalio/client';
import type { Config } from '../config';
import { registerSearchAttributes, searchAttributeCommands } from '../register-search-attributes';
import { connectionSecurityOptions } from '../temporal/connection-options';

/**
 * `rp register-search-attributes`: registers what the namespace lacks and says what it added. Fails
 * (exit 1) when the operator API refuses, printing the `temporal` commands to run instead.
 */
export async function registerConfiguredSearchAttributes(config: Config, log: (line: string) => void): Promise<{ namespace: string; added: string[] }> {
  const { address, namespace } = config.temporal;
  const connection = await Connection.connect({ address, ...connectionSecurityOptions(config.temporal.security) });
  try {
    const added = await registerSearchAttributes(connection, namespace);
    log(
      added.length > 0
        ? `registered search attributes on namespace ${namespace}: ${added.join(', ')}`
        : `namespace ${namespace} has every search attribute already`,
    );
    return { namespace, added };
  } catch (error) {
    throw new Error(
      `could not register the search attributes on ${address} (${error instanceof Error ? error.message : String(error)}); run instead:\n${searchAttributeCommands(namespace)}`,
      { cause: error },
    );
  } finally {
    await connection.close();
  }
}
