import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { webhookUrlProblem } from './api';
import { CodecKeyConfigError, parseCodecKeys, type CodecKeyring } from './codec/keys';
import { loadTemporalConnection, type TemporalSecurityConfig } from './temporal/connection-options';
import { DEFAULT_TASK_QUEUE } from './domain/ids';

/** Where the research service is: a real deployment, or the emulator embedded in the worker. */
export type ResearchServiceConfig =
  | { kind: 'service'; baseUrl: string; readonly apiKey: string; timeoutMs?: number; allowPrivateDownloads?: boolean; rate?: ResearchRate }
  | { kind: 'emulator'; timeoutMs?: number; allowPrivateDownloads?: boolean; rate?: ResearchRate };

/** The service's request limit for the key (`RESEARCH_API_REQUESTS_PER_SECOND`, `RESEARCH_API_BURST`): the client paces its calls to it. */
export interface ResearchRate {
  requestsPerSecond: number;
  burst?: number;
}

/** The worker's configuration, read from environment variables by `loadConfig`. */
export interface Config {
  /**
   * The connection (address, namespace, API key, TLS) read the standard way, from TEMPORAL_* variables and
   * temporal.toml profiles (see `loadTemporalConnection`); `addressSet`: an address was given (else
   * `address` is the default localhost:7233).
   */
  temporal: { address: string; addressSet: boolean; addressSource?: string; namespace: string; taskQueue: string; security?: TemporalSecurityConfig };
  research: ResearchServiceConfig;
  /** The local store's folder (ARTIFACT_DIR, or ARTIFACT_URL as a path or `file://` URL). */
  artifactDir: string;
  /** ARTIFACT_URL=s3://bucket/prefix: artifacts go to that bucket instead of `artifactDir`. */
  artifactStore?: S3ArtifactSettings;
  /**
   * WEBHOOK_SECRET_DIR, deprecated: secrets are kept encrypted in the artifact store; when set, this
   * folder is still read for secrets an earlier version wrote there.
   */
  webhookSecretDir?: string;
  /** Public base URL of the intake; webhooks are requested only when set. */
  intakePublicUrl?: string;
  /** Key of the webhook URLs' route tokens (INTAKE_KEY); set whenever `intakePublicUrl` is. Not enumerable: never logged. */
  readonly intakeKey?: string;
  /** Signing secret of run notifications (NOTIFY_SECRET, `whsec_<base64>`). Not enumerable: never logged. */
  readonly notifySecret?: string;
  /** Payload encryption keys (PAYLOAD_CODEC_KEYS); non-enumerable, so printing the config never shows them. */
  codec?: CodecKeyring;
  /** The codec endpoint for the Temporal UI (`rp codec-server`). */
  codecServer: CodecServerConfig;
  /** host:port of the SDK's Prometheus endpoint (METRICS_BIND_ADDRESS); off when unset. */
  metricsBindAddress?: string;
  /**
   * WORKER_MAX_CACHED_WORKFLOWS: how many workflow executions the worker keeps in memory between their
   * tasks (0: none, each task replays its history). Unset, the SDK sizes the cache from the V8 heap limit
   * (about 600 per GB of heap); set it when the heap is capped (`node --max-old-space-size`), which would
   * shrink that default with it.
   */
  maxCachedWorkflows?: number;
  /**
   * WORKER_HEAP: `compact` (default) keeps the worker's V8 heap close to what is live (a small young
   * generation, the old one grown 20 % past what the last full collection kept; see `compactWorkerHeap`);
   * `node` leaves Node's defaults, or the flags the process was started with.
   */
  workerHeap: WorkerHeapMode;
  log: { level: LogLevelName; format: 'json' | 'pretty' };
}

/** `WORKER_HEAP`: `compact` (the default) or `node` (Node's own defaults, or whatever flags the process was started with). */
export type WorkerHeapMode = 'compact' | 'node';

/**
 * An S3-compatible artifact store: the bucket and key prefix of ARTIFACT_URL; the client reads the
 * standard AWS environment (AWS_ENDPOINT_URL, AWS_REGION, the credential chain).
 */
export interface S3ArtifactSettings {
  kind: 's3';
  url: string;
  bucket: string;
  /** Empty, or ending in `/`. */
  prefix: string;
  /** AWS_S3_FORCE_PATH_STYLE=true: `http://host/bucket/key` addressing (SeaweedFS, MinIO). */
  forcePathStyle: boolean;
}

/** Log levels of LOG_LEVEL, from the noisiest. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevelName = (typeof LOG_LEVELS)[number];

/** How `rp codec-server` admits the Temporal UI: bearer token (non-enumerable), allowed browser origins. */
export interface CodecServerConfig {
  readonly token?: string;
  corsOrigins: string[];
  /** CODEC_SERVER_ALLOW_UNAUTHENTICATED=true: serve without a token (a loopback-only port). */
  allowUnauthenticated: boolean;
}

export type { TemporalSecurityConfig } from './temporal/connection-options';

/** One bad environment variable and the rule it breaks. */
export interface ConfigIssue {
  variable: string;
  message: string;
}

/** The environment does not make a valid configuration; the message names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly issues: readonly ConfigIssue[]) {
    super(`invalid configuration:\n${issues.map((issue) => `  ${issue.variable}: ${issue.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

// Docker env files and shells leave variables set but empty; that means "not set".
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());
const text = (fallback: string) => optional(z.string().trim().min(1)).transform((value) => value ?? fallback);
/**
 * ARTIFACT_URL: `s3://bucket/prefix` (an S3-compatible bucket), `file:///path` or a plain path (a local
 * folder). Returns the folder or the bucket and prefix, or the rule it breaks.
 */
export function parseArtifactUrl(value: string): { dir: string } | { bucket: string; prefix: string } | { problem: string } {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined || /^[a-zA-Z]:[\\/]/.test(value)) return { dir: value };
  if (scheme === 'file') {
    try {
      return { dir: fileURLToPath(value) };
    } catch (error) {
      return { problem: `is not a usable file:// URL (${(error as Error).message})` };
    }
  }
  if (scheme !== 's3') return { problem: 'must be s3://bucket/prefix, a file:// URL or a folder path' };
  const match = /^s3:\/\/([^/?#]*)(\/[^?#]*)?$/i.exec(value);
  if (!match) return { problem: 'must be s3://bucket/prefix, without a query or fragment' };
  const bucket = match[1] ?? '';
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    return { problem: `has bucket name ${JSON.stringify(bucket)}: must be 3 to 63 lowercase letters, digits, dots or hyphens` };
  }
  const segments = (match[2] ?? '').split('/').filter(Boolean);
  if (segments.some((segment) => segment === '.' || segment === '..' || segment.startsWith('.'))) {
    return { problem: 'has a prefix with a segment starting with "." (such segments are reserved for the store)' };
  }
  return { bucket, prefix: segments.length ? `${segments.join('/')}/` : '' };
}

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://api.example.com/v1' });

/** Estimated bits of a key from its character frequencies (Shannon entropy times length). */
function estimatedKeyBits(key: string): { distinct: number; bits: number } {
  const counts = new Map<string, number>();
  for (const character of key) counts.set(character, (counts.get(character) ?? 0) + 1);
  let bitsPerCharacter = 0;
  for (const count of counts.values()) bitsPerCharacter -= (count / key.length) * Math.log2(count / key.length);
  return { distinct: counts.size, bits: bitsPerCharacter * key.length };
}

/**
 * The intake key: random text of at least 32 characters (e.g. `openssl rand -hex 32`). A long key of
 * few distinct characters (`aaaa...`, `0123` repeated) is refused: its route tokens would be guessable.
 * Random hex of 32 characters has about 14 distinct characters and 112 bits by this estimate.
 */
export const intakeKey = z
  .string()
  .trim()
  .min(32, { error: 'must be at least 32 characters (e.g. openssl rand -hex 32)', abort: true })
  .refine((key) => {
    const { distinct, bits } = estimatedKeyBits(key);
    return distinct >= 8 && bits >= 96;
  }, 'has too little entropy (fewer than 8 distinct characters or under 96 bits by character frequency); use e.g. openssl rand -hex 32');

const DEFAULT_ARTIFACT_DIR = './.artifacts';

/** The artifact store's variables, read alike by the worker and the intake (they must share one store). */
export const artifactEnvironment = {
  ARTIFACT_DIR: optional(z.string().trim().min(1)),
  ARTIFACT_URL: optional(
    z
      .string()
      .trim()
      .min(1)
      .superRefine((value, ctx) => {
        const parsed = parseArtifactUrl(value);
        if ('problem' in parsed) ctx.addIssue({ code: 'custom', message: parsed.problem });
      }),
  ),
  AWS_S3_FORCE_PATH_STYLE: optional(z.enum(['true', 'false'], { error: 'must be true or false' })),
};

/** Refuses ARTIFACT_URL and ARTIFACT_DIR set together. */
export function checkArtifactVariables(env: { ARTIFACT_DIR?: string | undefined; ARTIFACT_URL?: string | undefined }, ctx: z.RefinementCtx): void {
  if (env.ARTIFACT_URL && env.ARTIFACT_DIR) {
    ctx.addIssue({
      code: 'custom',
      path: ['ARTIFACT_URL'],
      message: 'and ARTIFACT_DIR are both set: set only one (ARTIFACT_URL takes a path, file:// or s3:// URL)',
    });
  }
}

/** Where artifacts live: a local folder, or (ARTIFACT_URL=s3://...) a bucket, from checked variables. */
export function artifactSettings(vars: {
  ARTIFACT_DIR?: string | undefined;
  ARTIFACT_URL?: string | undefined;
  AWS_S3_FORCE_PATH_STYLE?: string | undefined;
}): {
  artifactDir: string;
  artifactStore?: S3ArtifactSettings;
} {
  const artifacts = vars.ARTIFACT_URL ? parseArtifactUrl(vars.ARTIFACT_URL) : { dir: vars.ARTIFACT_DIR ?? DEFAULT_ARTIFACT_DIR };
  return {
    artifactDir: 'dir' in artifacts ? artifacts.dir : DEFAULT_ARTIFACT_DIR,
    ...('bucket' in artifacts && vars.ARTIFACT_URL
      ? {
          artifactStore: {
            kind: 's3' as const,
            url: vars.ARTIFACT_URL,
            bucket: artifacts.bucket,
            prefix: artifacts.prefix,
            forcePathStyle: vars.AWS_S3_FORCE_PATH_STYLE === 'true',
          },
        }
      : {}),
  };
}

const environment = z
  .object({
    TEMPORAL_TASK_QUEUE: text(DEFAULT_TASK_QUEUE),
    RESEARCH_API_BASE_URL: optional(httpUrl),
    RESEARCH_API_KEY: optional(z.string().regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')),
    RESEARCH_API_TIMEOUT_MS: optional(
      z
        .string()
        .regex(/^\d+$/, 'must be a whole number of milliseconds')
        .transform(Number)
        .pipe(z.int().min(1, 'must be at least 1').max(3_600_000, 'must be at most 3600000 (one hour)')),
    ),
    RESEARCH_API_REQUESTS_PER_SECOND: optional(
      z
        .string()
        .regex(/^\d+(\.\d+)?$/, "must be a number of requests per second (the service's limit for the key), e.g. 10 or 2.5")
        .transform(Number)
        .pipe(z.number().positive('must be more than 0').max(10_000, 'must be at most 10000')),
    ),
    RESEARCH_API_BURST: optional(
      z
        .string()
        .regex(/^\d+$/, 'must be a whole number of requests')
        .transform(Number)
        .pipe(z.int().min(1, 'must be at least 1').max(10_000, 'must be at most 10000')),
    ),
    ...artifactEnvironment,
    WEBHOOK_SECRET_DIR: optional(z.string().trim().min(1)),
    INTAKE_KEY: optional(intakeKey),
    INTAKE_PUBLIC_URL: optional(
      z.string().superRefine((value, ctx) => {
        const problem = webhookUrlProblem(value);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    ),
    PAYLOAD_CODEC_KEYS: optional(z.string()),
    PAYLOAD_CODEC_KEY_ID: optional(z.string().trim()),
    NOTIFY_SECRET: optional(
      z
        .string()
        .regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, 'must be whsec_ followed by base64 of 24 to 64 random bytes (e.g. echo whsec_$(openssl rand -base64 32))'),
    ),
    CODEC_SERVER_TOKEN: optional(
      z
        .string()
        .min(16, 'must be at least 16 characters (e.g. openssl rand -hex 32)')
        .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
    ),
    CODEC_CORS_ORIGINS: text('http://localhost:8080').pipe(
      z
        .string()
        .transform((value) =>
          value
            .split(',')
            .map((origin) => origin.trim())
            .filter(Boolean),
        )
        .pipe(z.array(z.string().regex(/^https?:\/\/[^/\s]+$/, 'must be comma-separated origins such as http://localhost:8080 (scheme, host, port; no path)'))),
    ),
    CODEC_SERVER_ALLOW_UNAUTHENTICATED: optional(z.enum(['true', 'false'], { error: 'must be true or false' })),
    RESEARCH_ALLOW_PRIVATE_DOWNLOADS: optional(z.enum(['true', 'false'], { error: 'must be true or false' })),
    WORKER_HEAP: optional(z.enum(['compact', 'node'], { error: 'must be compact or node' })),
    WORKER_MAX_CACHED_WORKFLOWS: optional(
      z
        .string()
        .regex(/^\d+$/, 'must be a whole number of workflow executions')
        .transform(Number)
        .pipe(
          z
            .int()
            .max(100_000, 'must be at most 100000')
            .refine((value) => value === 0 || value >= 2, 'must be 0 (no cache: every workflow task replays its history) or at least 2'),
        ),
    ),
    METRICS_BIND_ADDRESS: optional(z.string().regex(/^[^\s/]+:\d{1,5}$/, 'must be host:port, e.g. 0.0.0.0:9464')),
    LOG_LEVEL: text('info').pipe(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` })),
    LOG_FORMAT: text('json').pipe(z.enum(['json', 'pretty'], { error: 'must be json or pretty' })),
  })
  .superRefine((env, ctx) => {
    if (env.PAYLOAD_CODEC_KEY_ID && !env.PAYLOAD_CODEC_KEYS) {
      ctx.addIssue({ code: 'custom', path: ['PAYLOAD_CODEC_KEYS'], message: 'is required when PAYLOAD_CODEC_KEY_ID is set' });
    }
    if (env.PAYLOAD_CODEC_KEYS) {
      try {
        parseCodecKeys(env.PAYLOAD_CODEC_KEYS, env.PAYLOAD_CODEC_KEY_ID);
      } catch (error) {
        if (!(error instanceof CodecKeyConfigError)) throw error;
        ctx.addIssue({ code: 'custom', path: [error.variable], message: error.message });
      }
    }
    if (env.INTAKE_PUBLIC_URL && !env.INTAKE_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['INTAKE_KEY'],
        message: "is required when INTAKE_PUBLIC_URL is set (the same key as the intake's; webhook URLs carry tokens made with it)",
      });
    }
    checkArtifactVariables(env, ctx);
    if (env.RESEARCH_API_BURST !== undefined && env.RESEARCH_API_REQUESTS_PER_SECOND === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['RESEARCH_API_REQUESTS_PER_SECOND'],
        message: 'is required when RESEARCH_API_BURST is set (the burst is of that rate)',
      });
    }
    if (env.RESEARCH_API_BASE_URL && !env.RESEARCH_API_KEY) {
      ctx.addIssue({ code: 'custom', path: ['RESEARCH_API_KEY'], message: 'is required when RESEARCH_API_BASE_URL is set' });
    }
    // A key without a URL most likely meant the real service; silently using the emulator would fake results.
    if (env.RESEARCH_API_KEY && !env.RESEARCH_API_BASE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['RESEARCH_API_BASE_URL'],
        message: 'is required when RESEARCH_API_KEY is set (leave both unset to use the embedded emulator)',
      });
    }
  });

/**
 * Reads the configuration from environment variables. Without `RESEARCH_API_BASE_URL` (and key) the
 * worker uses the embedded emulator. Throws `ConfigError` listing every bad variable and its rule.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = environment.safeParse(env);
  const temporal = loadTemporalConnection(env);
  if (!parsed.success || !temporal.connection) {
    throw new ConfigError([
      ...temporal.issues,
      ...(parsed.error?.issues ?? []).map((issue) => ({ variable: String(issue.path[0] ?? '(environment)'), message: issue.message })),
    ]);
  }
  const vars = parsed.data;
  const timeout = {
    ...(vars.RESEARCH_API_TIMEOUT_MS !== undefined ? { timeoutMs: vars.RESEARCH_API_TIMEOUT_MS } : {}),
    ...(vars.RESEARCH_ALLOW_PRIVATE_DOWNLOADS === 'true' ? { allowPrivateDownloads: true } : {}),
    ...(vars.RESEARCH_API_REQUESTS_PER_SECOND !== undefined
      ? {
          rate: {
            requestsPerSecond: vars.RESEARCH_API_REQUESTS_PER_SECOND,
            ...(vars.RESEARCH_API_BURST !== undefined ? { burst: vars.RESEARCH_API_BURST } : {}),
          },
        }
      : {}),
  };
  const research: ResearchServiceConfig =
    vars.RESEARCH_API_BASE_URL && vars.RESEARCH_API_KEY
      ? withHiddenKey({ kind: 'service', baseUrl: vars.RESEARCH_API_BASE_URL, ...timeout }, vars.RESEARCH_API_KEY)
      : { kind: 'emulator', ...timeout };
  const config: Config = {
    temporal: { ...temporal.connection, taskQueue: vars.TEMPORAL_TASK_QUEUE },
    research,
    ...artifactSettings(vars),
    ...(vars.WEBHOOK_SECRET_DIR ? { webhookSecretDir: vars.WEBHOOK_SECRET_DIR } : {}),
    ...(vars.INTAKE_PUBLIC_URL ? { intakePublicUrl: vars.INTAKE_PUBLIC_URL.replace(/\/+$/, '') } : {}),
    codecServer: hidden<CodecServerConfig, 'token'>(
      { corsOrigins: vars.CODEC_CORS_ORIGINS, allowUnauthenticated: vars.CODEC_SERVER_ALLOW_UNAUTHENTICATED === 'true' },
      'token',
      vars.CODEC_SERVER_TOKEN,
    ),
    ...(vars.METRICS_BIND_ADDRESS ? { metricsBindAddress: vars.METRICS_BIND_ADDRESS } : {}),
    ...(vars.WORKER_MAX_CACHED_WORKFLOWS !== undefined ? { maxCachedWorkflows: vars.WORKER_MAX_CACHED_WORKFLOWS } : {}),
    workerHeap: vars.WORKER_HEAP ?? 'compact',
    log: { level: vars.LOG_LEVEL, format: vars.LOG_FORMAT },
  };
  hidden(config, 'intakeKey', vars.INTAKE_KEY);
  hidden(config, 'notifySecret', vars.NOTIFY_SECRET);
  return vars.PAYLOAD_CODEC_KEYS ? hidden(config, 'codec', parseCodecKeys(vars.PAYLOAD_CODEC_KEYS, vars.PAYLOAD_CODEC_KEY_ID)) : config;
}

/**
 * Refuses a production worker (NODE_ENV=production, as in the image) that would silently run the embedded
 * emulator because the service settings are empty: its results would be made up. RESEARCH_SERVICE=emulator
 * asks for the emulator on purpose (a demo deployment).
 */
export function checkWorkerResearchService(config: Pick<Config, 'research'>, env: Record<string, string | undefined> = process.env): void {
  if (config.research.kind !== 'emulator' || env.NODE_ENV !== 'production' || env.RESEARCH_SERVICE === 'emulator') return;
  throw new ConfigError([
    {
      variable: 'RESEARCH_API_BASE_URL',
      message:
        'is required in production (NODE_ENV=production): without it (and RESEARCH_API_KEY) the worker would run the embedded emulator and return made-up research; set RESEARCH_SERVICE=emulator to run the emulator on purpose',
    },
  ]);
}

/** Sets `name` as a non-enumerable property (when there is a value), so logs and JSON never show it. */
function hidden<T extends object, K extends keyof T>(target: T, name: K, value: T[K] | undefined): T {
  return value === undefined ? target : Object.defineProperty(target, name, { value, enumerable: false });
}

/** Attaches the key as a non-enumerable property, so logging or serialising the config never shows it. */
function withHiddenKey(research: Omit<Extract<ResearchServiceConfig, { kind: 'service' }>, 'apiKey'>, apiKey: string): ResearchServiceConfig {
  return Object.defineProperty({ ...research }, 'apiKey', { value: apiKey, enumerable: false }) as ResearchServiceConfig;
}
