import { running } from './global-setup';

/** Jest global teardown: stops the server global setup started (a no-op for an existing one's connection). */
export default async function globalTeardown(): Promise<void> {
  await running.server?.close();
  running.server = undefined;
}
