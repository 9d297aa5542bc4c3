import { running } from './global-setup';

/** Jest global teardown: stops the servers global setup started (a no-op for an existing one's connection). */
export default async function globalTeardown(): Promise<void> {
  await Promise.all([running.server?.close(), running.store?.close()]);
  running.server = undefined;
  running.store = undefined;
}
