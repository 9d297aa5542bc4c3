import { z } from 'zod';
import { webhookUrlProblem } from './api';

/** Where the research service is: a real deployment, or the emulator embedded in the worker. */
export type ResearchServiceConfig =
  | { kind: 'service'; baseUrl: string; readonly apiKey: string; timeoutMs?: number }
  | { kind: 'emulator'; timeoutMs?: number };

/** The worker's configuration, read from environment variables by `loadConfig`. */
export interface Config {
  /** `addressSet`: TEMPORAL_ADDRESS was given (else `address` is the default localhost:7233). */
  temporal: { address: string; addressSet: boolean; namespace: string; taskQueue: string };
  research: ResearchServiceConfig;
  artifactDir: string;
  webhookSecretDir: string;
  /** Public base URL of the intake; webhooks are requested only when set. */
  intakePublicUrl?: string;
  /** Key of the webhook URLs' route tokens (INTAKE_KEY); set whenever `intakePublicUrl` is. Not enumerable: never logged. */
  readonly intakeKey?: string;
}

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
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://api.example.com/v1' });

/** The intake key: random text of at least 32 characters (e.g. `openssl rand -hex 32`). */
export const intakeKey = z.string().trim().min(32, 'must be at least 32 characters (e.g. openssl rand -hex 32)');

const environment = z.object({
  TEMPORAL_ADDRESS: text('localhost:7233').pipe(z.string().regex(/^[^\s/]+:\d{1,5}$/, 'must be host:port, e.g. localhost:7233')),
  TEMPORAL_NAMESPACE: text('default'),
  TEMPORAL_TASK_QUEUE: text('research-pipelines'),
  RESEARCH_API_BASE_URL: optional(httpUrl),
  RESEARCH_API_KEY: optional(z.string().regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')),
  RESEARCH_API_TIMEOUT_MS: optional(z.string().regex(/^\d+$/, 'must be a whole number of milliseconds').transform(Number)
    .pipe(z.int().min(1, 'must be at least 1').max(3_600_000, 'must be at most 3600000 (one hour)'))),
  ARTIFACT_DIR: text('./.artifacts'),
  WEBHOOK_SECRET_DIR: text('./.webhook-secrets'),
  INTAKE_KEY: optional(intakeKey),
  INTAKE_PUBLIC_URL: optional(z.string().superRefine((value, ctx) => {
    const problem = webhookUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })),
}).superRefine((env, ctx) => {
  if (env.INTAKE_PUBLIC_URL && !env.INTAKE_KEY) {
    ctx.addIssue({ code: 'custom', path: ['INTAKE_KEY'], message: 'is required when INTAKE_PUBLIC_URL is set (the same key as the intake\'s; webhook URLs carry tokens made with it)' });
  }
  if (env.RESEARCH_API_BASE_URL && !env.RESEARCH_API_KEY) {
    ctx.addIssue({ code: 'custom', path: ['RESEARCH_API_KEY'], message: 'is required when RESEARCH_API_BASE_URL is set' });
  }
  // A key without a URL most likely meant the real service; silently using the emulator would fake results.
  if (env.RESEARCH_API_KEY && !env.RESEARCH_API_BASE_URL) {
    ctx.addIssue({ code: 'custom', path: ['RESEARCH_API_BASE_URL'], message: 'is required when RESEARCH_API_KEY is set (leave both unset to use the embedded emulator)' });
  }
});

/**
 * Reads the configuration from environment variables. Without `RESEARCH_API_BASE_URL` (and key) the
 * worker uses the embedded emulator. Throws `ConfigError` listing every bad variable and its rule.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = environment.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => ({ variable: String(issue.path[0] ?? '(environment)'), message: issue.message })));
  }
  const vars = parsed.data;
  const timeout = vars.RESEARCH_API_TIMEOUT_MS !== undefined ? { timeoutMs: vars.RESEARCH_API_TIMEOUT_MS } : {};
  const research: ResearchServiceConfig = vars.RESEARCH_API_BASE_URL && vars.RESEARCH_API_KEY
    ? withHiddenKey({ kind: 'service', baseUrl: vars.RESEARCH_API_BASE_URL, ...timeout }, vars.RESEARCH_API_KEY)
    : { kind: 'emulator', ...timeout };
  const config: Config = {
    temporal: { address: vars.TEMPORAL_ADDRESS, addressSet: Boolean(env.TEMPORAL_ADDRESS?.trim()), namespace: vars.TEMPORAL_NAMESPACE, taskQueue: vars.TEMPORAL_TASK_QUEUE },
    research,
    artifactDir: vars.ARTIFACT_DIR,
    webhookSecretDir: vars.WEBHOOK_SECRET_DIR,
    ...(vars.INTAKE_PUBLIC_URL ? { intakePublicUrl: vars.INTAKE_PUBLIC_URL.replace(/\/+$/, '') } : {}),
  };
  return vars.INTAKE_KEY ? Object.defineProperty(config, 'intakeKey', { value: vars.INTAKE_KEY, enumerable: false }) : config;
}

/** Attaches the key as a non-enumerable property, so logging or serialising the config never shows it. */
function withHiddenKey(research: Omit<Extract<ResearchServiceConfig, { kind: 'service' }>, 'apiKey'>, apiKey: string): ResearchServiceConfig {
  return Object.defineProperty({ ...research }, 'apiKey', { value: apiKey, enumerable: false }) as ResearchServiceConfig;
}
