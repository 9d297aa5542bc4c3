import type { Clock } from './clock';

/** Permissions a key may hold (spec section 5). */
export type Permission = 'inference' | 'increased_max_results';

/** An account behind one API key: credits, permissions and plan. */
export interface Account {
  readonly key: string;
  readonly organization: string;
  creditsUsd: number;
  readonly permissions: ReadonlySet<Permission>;
  /** A subscription unlocks proprietary and premium datasets. */
  readonly subscription: boolean;
}

/** Credits: every paid route charges through this, and it answers 402 when the balance is short. */
export interface Accounts {
  /** The account for a key, or undefined when the key is unknown. */
  find(key: string): Account | undefined;
  /** Deducts `usd`; throws an `EmulatorHttpError` 402 (and deducts nothing) when the balance is short. */
  charge(account: Account, usd: number, reason: string, subject?: string): void;
}

/** Counters the tests and benchmarks read through `GET /_emulator/stats`. */
export interface EmulatorStats {
  recordRequest(route: string, status: number): void;
  /** One DeepResearch task created (directly or in a batch), keyed by its metadata. */
  recordTaskCreated(metadata: Record<string, unknown> | undefined): void;
  recordWebhook(event: { kind: 'task' | 'batch'; id: string; outcome: 'delivered' | 'failed' | 'dropped' | 'duplicated' }): void;
  snapshot(): EmulatorStatsSnapshot;
}

/** A plain copy of the counters. */
export interface EmulatorStatsSnapshot {
  requests: Record<string, Record<string, number>>;
  tasksCreated: number;
  /** Count of tasks created per canonical JSON of their metadata (`{}` when none): duplicates show as > 1. */
  tasksCreatedByMetadata: Record<string, number>;
  webhooks: { delivered: number; failed: number; dropped: number; duplicated: number };
}

/** A deterministic pseudo-random source, seeded from the emulator's options. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** A random id of hex characters. */
  hex(length: number): string;
}

/** One parsed request as a route handler sees it. */
export interface EmulatorRequest {
  readonly method: string;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** Parsed JSON body (undefined when there was none). */
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly account: Account;
}

/** What a handler answers: JSON, raw bytes, or an SSE stream of `data:` payloads. */
export type EmulatorResponse =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: number; raw: Uint8Array; contentType: string; headers?: Record<string, string> }
  | { status: number; sse: AsyncIterable<string>; headers?: Record<string, string> };

/** One route: `pattern` uses `:name` segments, `name` labels it in stats and fault settings. */
export interface EmulatorRoute {
  readonly method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  readonly pattern: string;
  readonly name: string;
  /** Routes on tasks, workflows and batches need the `inference` permission (403 without). */
  readonly requiresInference?: boolean;
  handle(request: EmulatorRequest): EmulatorResponse | Promise<EmulatorResponse>;
}

/** An HTTP error a handler throws; the server writes `status` and `body` as they are. */
export class EmulatorHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === 'object' && body !== null && 'error' in body ? String(body.error) : `HTTP ${status}`);
  }

  /** The common `{ success: false, error }` form. */
  static of(status: number, error: string, headers?: Record<string, string>): EmulatorHttpError {
    return new EmulatorHttpError(status, { success: false, error }, headers);
  }
}

/** What every part of the emulator shares. */
export interface EmulatorContext {
  readonly clock: Clock;
  readonly random: Random;
  readonly accounts: Accounts;
  readonly stats: EmulatorStats;
  /** The server's own base URL (known once it listens), for asset and PDF links. */
  baseUrl(): string;
}
