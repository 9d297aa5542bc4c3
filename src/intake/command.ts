import { readFile } from 'node:fs/promises';
import { Client, Connection } from '@temporalio/client';
import { openWebhookSecretStore, WEBHOOK_SECRET_DIR_DEPRECATION, type SecretRecordStore, type WebhookSecretStore } from '../shared/webhook-secrets';
import { dataConverterFromConfig } from '../codec/data-converter';
import { connectionSecurityOptions } from '../temporal/connection-options';
import type { IntakeConfig } from './config';
import type { ResultStore } from './result-routes';
import { buildIntake } from './server';

/** Where `rp intake` listens. */
export interface ListenOptions {
  port: number;
  host: string;
  /** Stops the intake when aborted (as SIGINT and SIGTERM do). */
  signal?: AbortSignal;
}

/** What the intake reads from outside Temporal. */
export interface IntakeStores {
  /**
   * The worker's artifact store, opened from the same settings (`openArtifactStore` of
   * `research-pipelines/activities`): the intake reads the webhook secrets the worker keeps there.
   */
  store: SecretRecordStore;
  /** The same store, read by the results routes (`GET .../runs/{key}/items`, `.../outputs`); without it they answer 501. */
  results?: ResultStore;
}

/** The webhook secrets `rp intake` verifies with: the worker's records in `stores.store`, opened with INTAKE_KEY. */
export function intakeWebhookSecrets(config: Pick<IntakeConfig, 'intakeKey' | 'webhookSecretDir'>, stores: IntakeStores): WebhookSecretStore {
  return openWebhookSecretStore({
    store: stores.store,
    intakeKey: config.intakeKey,
    ...(config.webhookSecretDir ? { legacyDir: config.webhookSecretDir } : {}),
  });
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/**
 * Runs the intake until SIGINT, SIGTERM or `signal`. Temporal is connected lazily, so the intake starts
 * and refuses bad requests while Temporal is down (`/readyz` answers 503 until it is back).
 */
export async function runIntake(config: IntakeConfig, listen: ListenOptions, stores: IntakeStores): Promise<void> {
  // A short connect timeout keeps /readyz and 503 answers quick while Temporal is away.
  const connection = Connection.lazy({ address: config.temporal.address, connectTimeout: '2 seconds', ...connectionSecurityOptions(config.temporal.security) });
  // The worker's data converter: with PAYLOAD_CODEC_KEYS, what the intake writes is encrypted like the rest.
  const client = new Client({ connection, namespace: config.temporal.namespace, dataConverter: dataConverterFromConfig(config) });
  const tls = config.tls ? { cert: await readFile(config.tls.certFile), key: await readFile(config.tls.keyFile) } : undefined;
  const { app } = await buildIntake({
    client,
    secrets: intakeWebhookSecrets(config, stores),
    ...(stores.results ? { results: stores.results } : {}),
    intakeKey: config.intakeKey,
    tokens: config.tokens,
    pipelinesDir: config.pipelinesDir,
    taskQueue: config.temporal.taskQueue,
    namespace: config.temporal.namespace,
    bodyLimitBytes: config.bodyLimitBytes,
    webhookToleranceSeconds: config.webhookToleranceSeconds,
    ...(config.temporalUiUrl ? { temporalUiUrl: config.temporalUiUrl } : {}),
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    ...(tls ? { tls } : {}),
  });
  if (!tls && !LOOPBACK.test(listen.host)) {
    app.log.warn(
      `listening on ${listen.host} without TLS: plain HTTP is for loopback development; give INTAKE_TLS_CERT and INTAKE_TLS_KEY or put a TLS proxy in front`,
    );
  }
  if (config.webhookSecretDir) app.log.warn(WEBHOOK_SECRET_DIR_DEPRECATION);
  if (config.tokens.length === 0) app.log.warn('INTAKE_TOKENS is not set: the app-event routes refuse every request');
  const stop = () => void app.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  listen.signal?.addEventListener('abort', stop, { once: true });
  try {
    await app.listen({ port: listen.port, host: listen.host });
    await new Promise<void>((resolve) => app.server.once('close', () => resolve()));
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await connection.close().catch(() => undefined);
  }
}
