import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import pino, { type DestinationStream, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import { redact } from './api/errors';
import type { Config } from './config';
import { colourFor, type MaybeTerminal } from './shared/colour';

/** Field names whose values never reach a log line, wherever they sit (pino's redaction paths). */
export const REDACTED_FIELDS = [
  'apiKey',
  'api_key',
  'authorization',
  'Authorization',
  'x-api-key',
  'secret',
  'webhookSecret',
  'token',
  'password',
  'codecKeys',
  'PAYLOAD_CODEC_KEYS',
  'RESEARCH_API_KEY',
  'TEMPORAL_API_KEY',
  'CODEC_SERVER_TOKEN',
  'clientKey',
  'TEMPORAL_TLS_CLIENT_KEY_DATA',
  'grpcMeta',
  // The SDK puts an activity's task token on its log lines; with it anyone could complete the activity.
  'taskToken',
];

const REDACT_PATHS = REDACTED_FIELDS.flatMap((field) => {
  const key = /^[A-Za-z_$][\w$]*$/.test(field) ? field : `["${field}"]`;
  const child = key.startsWith('[') ? key : `.${key}`;
  return [key, `*${child}`, `*.*${child}`];
});

// A secret can hide inside a message too ("calling … with Bearer rk_live_…"), not only under a field name.
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Secret values to scrub from messages and string fields (API key, tokens, codec keys). */
  secrets?: readonly string[];
  /** Where lines go (stdout by default); tests pass a stream. */
  destination?: DestinationStream & MaybeTerminal;
  /** The environment NO_COLOR and TERM are read from (process.env by default). */
  env?: Record<string, string | undefined>;
}

/**
 * The project's pino logger, from LOG_LEVEL and LOG_FORMAT (json: one JSON object a line for a log
 * pipeline; pretty: for a terminal, coloured only on a terminal without NO_COLOR). Field names in {@link REDACTED_FIELDS} print as [REDACTED], and the
 * configured secret values and bearer tokens are scrubbed from messages and string fields.
 */
export function createLogger(config: Pick<Config, 'log'>, options: LoggerOptions = {}): Logger {
  const secrets = (options.secrets ?? []).filter((secret) => secret.length >= 8);
  const scrub = (text: string): string => redact(text, secrets).replace(BEARER, '$1 [REDACTED]');
  const pinoOptions: pino.LoggerOptions = {
    level: config.log.level,
    base: { service: 'research-pipelines' },
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    formatters: { level: (label) => ({ level: label }), log: (fields) => scrubFields(fields, scrub) },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((arg) => (typeof arg === 'string' ? scrub(arg) : arg)) as Parameters<typeof method>);
      },
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (config.log.format === 'pretty') {
    const colorize = colourFor(options.destination ?? process.stdout, options.env);
    if (options.destination) return pino(pinoOptions, pinoPretty({ colorize, destination: options.destination, sync: true }));
    return pino({ ...pinoOptions, transport: { target: 'pino-pretty', options: { colorize } } });
  }
  return options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
}

/** The secret values of a configuration, for {@link LoggerOptions.secrets}. */
export function configSecrets(config: Config): string[] {
  return [
    config.research.kind === 'service' ? config.research.apiKey : undefined,
    config.temporal.security?.apiKey,
    ...keyData(config.temporal.security?.tls?.clientKey),
    ...Object.values(config.temporal.security?.grpcMeta ?? {}),
    config.codecServer.token,
    ...[...(config.codec?.keys.values() ?? [])].map((key) => key.toString('base64')),
  ].filter((value): value is string => typeof value === 'string' && value.length > 0);
}

/** A TLS client key given as data (TEMPORAL_TLS_CLIENT_KEY_DATA, tls.client_key_data), as text. */
function keyData(source: { path: string } | { data: string | Uint8Array } | undefined): string[] {
  if (!source || !('data' in source)) return [];
  return [typeof source.data === 'string' ? source.data : Buffer.from(source.data).toString('utf8')].map((text) => text.trim());
}

function scrubFields(value: Record<string, unknown>, scrub: (text: string) => string, depth = 0): Record<string, unknown> {
  if (depth > 4) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (typeof field === 'string') out[key] = scrub(field);
    else if (field instanceof Error) out[key] = { type: field.name, message: scrub(field.message), ...(field.stack ? { stack: scrub(field.stack) } : {}) };
    else if (field && typeof field === 'object' && !Array.isArray(field)) out[key] = scrubFields(field as Record<string, unknown>, scrub, depth + 1);
    else out[key] = field;
  }
  return out;
}

const PINO_LEVEL: Readonly<Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'>> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * The workflow bundler logs webpack's whole report (every module, many kilobytes) as one INFO message at
 * each worker start; it is debugging material, so it goes out at DEBUG. The one-line "Workflow bundle
 * created" stays at INFO, and a report of a failed build comes at ERROR and stays there.
 */
function quietLevel(level: LogLevel, message: string): LogLevel {
  return level === 'INFO' && message.includes('\n') && /\bwebpack\b.*\bcompiled\b/.test(message) ? 'DEBUG' : level;
}

/** Temporal's `Logger` on top of pino, for `Runtime.install({ logger })`: SDK, worker, workflow and activity logs. */
export class PinoTemporalLogger implements TemporalLogger {
  constructor(private readonly pino: Logger) {}

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    this.pino[PINO_LEVEL[quietLevel(level, message)] ?? 'info']({ ...meta }, message);
  }

  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}
