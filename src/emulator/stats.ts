import type { EmulatorStats, EmulatorStatsSnapshot } from './types';

/** Fault kinds the server injects, counted per route. */
export type InjectedFault = 'latency' | 'slow' | 'error' | 'rateLimitBurst' | 'dropped' | 'sourceFailure' | 'unknownStatus';

/** The snapshot `GET /_emulator/stats` returns: the shared counters plus the server's own. */
export interface ServerStatsSnapshot extends EmulatorStatsSnapshot {
  /** Per route: requests whose handler ran and whose connection was then destroyed without an answer. */
  droppedConnections: Record<string, number>;
  /** Per route and fault kind: how often a configured fault fired. */
  injectedFaults: Record<string, Partial<Record<InjectedFault, number>>>;
  /** Requests refused by the per-key rate limiter (also counted as 429 under `requests`). */
  rateLimited: number;
  /** Credits charged so far over all accounts, in USD. */
  chargedUsd: number;
}

/** Sorted-key JSON, so the same metadata always gives the same key however its keys were ordered. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const increment = <K extends string>(counts: Partial<Record<K, number>>, key: K): void => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/** The emulator's counters. */
export class StatsRecorder implements EmulatorStats {
  private readonly requests: Record<string, Record<string, number>> = {};
  private tasksCreated = 0;
  private readonly tasksCreatedByMetadata: Record<string, number> = {};
  private readonly webhooks = { delivered: 0, failed: 0, dropped: 0, duplicated: 0 };
  private readonly droppedConnections: Record<string, number> = {};
  private readonly injectedFaults: Record<string, Partial<Record<InjectedFault, number>>> = {};
  private rateLimited = 0;

  constructor(private readonly chargedUsd: () => number = () => 0) {}

  /** One answered request on `route` with `status`. */
  recordRequest(route: string, status: number): void {
    increment((this.requests[route] ??= {}), String(status));
  }

  /** One task created, keyed by its canonical metadata. */
  recordTaskCreated(metadata: Record<string, unknown> | undefined): void {
    this.tasksCreated += 1;
    increment(this.tasksCreatedByMetadata, canonicalJson(metadata ?? {}));
  }

  /** One webhook delivery outcome. */
  recordWebhook(event: { kind: 'task' | 'batch'; id: string; outcome: 'delivered' | 'failed' | 'dropped' | 'duplicated' }): void {
    this.webhooks[event.outcome] += 1;
  }

  /** A connection destroyed after its handler ran. */
  recordDroppedConnection(route: string): void {
    increment(this.droppedConnections, route);
  }

  /** A configured fault fired on `route`. */
  recordFault(route: string, fault: InjectedFault): void {
    increment((this.injectedFaults[route] ??= {}), fault);
  }

  /** A request refused by the rate limiter. */
  recordRateLimited(): void {
    this.rateLimited += 1;
  }

  /** A deep copy of every counter. */
  snapshot(): ServerStatsSnapshot {
    return structuredClone({
      requests: this.requests,
      tasksCreated: this.tasksCreated,
      tasksCreatedByMetadata: this.tasksCreatedByMetadata,
      webhooks: this.webhooks,
      droppedConnections: this.droppedConnections,
      injectedFaults: this.injectedFaults,
      rateLimited: this.rateLimited,
      chargedUsd: this.chargedUsd(),
    });
  }
}
