import { z } from 'zod';
import { CodecKeyConfigError, parseCodecKeys, type CodecKeyring } from '../codec/keys';
import { artifactEnvironment, artifactSettings, checkArtifactVariables, ConfigError, intakeKey, type S3ArtifactSettings } from '../config';
import { loadTemporalConnection, type TemporalSecurityConfig } from '../temporal/connection-options';
import { DEFAULT_TASK_QUEUE } from '../domain/ids';

/** The intake's configuration, read from environment variables by `loadIntakeConfig`. */
export interface IntakeConfig {
  /** The worker's Temporal connection settings (TEMPORAL_* variables, temporal.toml profiles), and its task queue. */
  temporal: { address: string; namespace: string; taskQueue: string; security?: TemporalSecurityConfig };
  /** Key of the webhook URLs' route tokens (the worker's INTAKE_KEY). Not enumerable: never logged. */
  readonly intakeKey: string;
  /** Bearer tokens accepted on the app-event routes. Not enumerable: never logged. */
  readonly tokens: readonly string[];
  /**
   * The worker's artifact store, where the webhook secrets are kept (encrypted with INTAKE_KEY): the same
   * ARTIFACT_URL (or ARTIFACT_DIR) and AWS settings as the worker's.
   */
  artifactDir: string;
  /** ARTIFACT_URL=s3://bucket/prefix: the bucket instead of `artifactDir`. */
  artifactStore?: S3ArtifactSettings;
  /** WEBHOOK_SECRET_DIR, deprecated: read for secrets an earlier worker wrote there. */
  webhookSecretDir?: string;
  pipelinesDir: string;
  bodyLimitBytes: number;
  /** Accepted clock difference of a webhook's timestamp, in seconds. */
  webhookToleranceSeconds: number;
  tls?: { certFile: string; keyFile: string };
  /** Base URL of the Temporal UI, for links in answers (e.g. http://localhost:8233). */
  temporalUiUrl?: string;
  /** The intake's own public URL (INTAKE_PUBLIC_URL), for the status links in its answers. */
  publicUrl?: string;
  /** The worker's payload keys (PAYLOAD_CODEC_KEYS); non-enumerable, never printed. */
  readonly codec?: CodecKeyring;
}

const optional = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());
const text = (fallback: string) => optional(z.string().trim().min(1)).transform((value) => value ?? fallback);
const whole = (rule: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, rule)
    .transform(Number)
    .pipe(z.int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

const environment = z
  .object({
    TEMPORAL_TASK_QUEUE: text(DEFAULT_TASK_QUEUE),
    INTAKE_KEY: z.string({ error: "is required (the same key as the worker's; e.g. openssl rand -hex 32)" }).pipe(intakeKey),
    INTAKE_TOKENS: optional(
      z
        .string()
        .transform((value) =>
          value
            .split(',')
            .map((token) => token.trim())
            .filter(Boolean),
        )
        .pipe(z.array(z.string().min(16, 'each token must be at least 16 characters'))),
    ),
    ...artifactEnvironment,
    WEBHOOK_SECRET_DIR: optional(z.string().trim().min(1)),
    INTAKE_PIPELINES_DIR: text('./pipelines'),
    INTAKE_BODY_LIMIT_BYTES: optional(whole('must be a whole number of bytes', 1024, 64 * 1024 * 1024)),
    INTAKE_WEBHOOK_TOLERANCE_SECONDS: optional(whole('must be a whole number of seconds', 1, 3600)),
    INTAKE_TLS_CERT: optional(z.string().trim().min(1)),
    INTAKE_TLS_KEY: optional(z.string().trim().min(1)),
    TEMPORAL_UI_URL: optional(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://localhost:8233' })),
    INTAKE_PUBLIC_URL: optional(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://intake.example.com' })),
    PAYLOAD_CODEC_KEYS: optional(z.string()),
    PAYLOAD_CODEC_KEY_ID: optional(z.string().trim()),
  })
  .superRefine((env, ctx) => {
    checkArtifactVariables(env, ctx);
    if (env.PAYLOAD_CODEC_KEYS) {
      try {
        parseCodecKeys(env.PAYLOAD_CODEC_KEYS, env.PAYLOAD_CODEC_KEY_ID);
      } catch (error) {
        if (!(error instanceof CodecKeyConfigError)) throw error;
        ctx.addIssue({ code: 'custom', path: [error.variable], message: error.message });
      }
    }
    if (Boolean(env.INTAKE_TLS_CERT) !== Boolean(env.INTAKE_TLS_KEY)) {
      ctx.addIssue({
        code: 'custom',
        path: [env.INTAKE_TLS_CERT ? 'INTAKE_TLS_KEY' : 'INTAKE_TLS_CERT'],
        message: 'INTAKE_TLS_CERT and INTAKE_TLS_KEY go together: give both or neither',
      });
    }
  });

/** Default body limit: webhooks and app events are small. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** Reads the intake's configuration; throws `ConfigError` naming every bad variable and its rule (never a value). */
export function loadIntakeConfig(env: Record<string, string | undefined> = process.env): IntakeConfig {
  const parsed = environment.safeParse(env);
  const temporal = loadTemporalConnection(env);
  if (!parsed.success || !temporal.connection) {
    throw new ConfigError([
      ...temporal.issues,
      ...(parsed.error?.issues ?? []).map((issue) => ({ variable: String(issue.path[0] ?? '(environment)'), message: issue.message })),
    ]);
  }
  const vars = parsed.data;
  const { address, namespace, security } = temporal.connection;
  const config = {
    temporal: { address, namespace, taskQueue: vars.TEMPORAL_TASK_QUEUE, ...(security ? { security } : {}) },
    ...artifactSettings(vars),
    ...(vars.WEBHOOK_SECRET_DIR ? { webhookSecretDir: vars.WEBHOOK_SECRET_DIR } : {}),
    pipelinesDir: vars.INTAKE_PIPELINES_DIR,
    bodyLimitBytes: vars.INTAKE_BODY_LIMIT_BYTES ?? DEFAULT_BODY_LIMIT_BYTES,
    webhookToleranceSeconds: vars.INTAKE_WEBHOOK_TOLERANCE_SECONDS ?? 300,
    ...(vars.INTAKE_TLS_CERT && vars.INTAKE_TLS_KEY ? { tls: { certFile: vars.INTAKE_TLS_CERT, keyFile: vars.INTAKE_TLS_KEY } } : {}),
    ...(vars.TEMPORAL_UI_URL ? { temporalUiUrl: vars.TEMPORAL_UI_URL.replace(/\/+$/, '') } : {}),
    ...(vars.INTAKE_PUBLIC_URL ? { publicUrl: vars.INTAKE_PUBLIC_URL.replace(/\/+$/, '') } : {}),
  };
  Object.defineProperty(config, 'intakeKey', { value: vars.INTAKE_KEY, enumerable: false });
  // The worker's keys: the intake writes run inputs and signals into the same (encrypted) histories and reads them back.
  if (vars.PAYLOAD_CODEC_KEYS)
    Object.defineProperty(config, 'codec', { value: parseCodecKeys(vars.PAYLOAD_CODEC_KEYS, vars.PAYLOAD_CODEC_KEY_ID), enumerable: false });
  Object.defineProperty(config, 'tokens', { value: vars.INTAKE_TOKENS ?? [], enumerable: false });
  return config as IntakeConfig;
}
