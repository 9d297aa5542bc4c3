import { z } from 'zod';
import type { InjectedFault } from './stats';
import type { Random } from './types';

/** Injected faults for one route (or `*`, every route without its own entry). */
export const routeFaults = z.strictObject({
  /** Extra real-time delay before answering, fixed or uniformly drawn from [min, max]. */
  latencyMs: z
    .union([
      z.number().min(0, 'must be at least 0'),
      z.tuple([z.number().min(0), z.number().min(0)]).refine(([min, max]) => min <= max, 'must be [min, max] with min <= max'),
    ])
    .optional(),
  /**
   * Every `every`-th request on the route waits `ms` more before its handler runs (a slow call: longer
   * than a heartbeat timeout, say, to show the caller keeps its one attempt alive instead of retrying beside it).
   */
  slowCalls: z
    .strictObject({
      every: z.int().positive('must be a positive integer'),
      ms: z.number().min(0, 'must be at least 0'),
    })
    .optional(),
  /** Share of requests answered 500, 502 or 503 before the handler runs. */
  errorRate: z.number().min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1').optional(),
  /** After every `every` requests, the next `count` are answered 429 with `Retry-After`. */
  rateLimitBurst: z
    .strictObject({
      every: z.int().positive('must be a positive integer'),
      count: z.int().positive('must be a positive integer'),
      retryAfterSeconds: z.int().positive().optional(),
    })
    .optional(),
  /** Share of requests whose handler runs (a task IS created) and whose socket is then destroyed unanswered. */
  dropAfterProcessingRate: z.number().min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1').optional(),
  /**
   * Share of successful JSON answers whose `status` field is a value outside the spec's enum (a newer
   * service's state, a corrupted body): the client must refuse it, and whoever follows the resource must not
   * give up on it.
   */
  unknownStatusRate: z.number().min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1').optional(),
  /** Search and Answer: share of requests where one source "fails" and the answer is a 206 partial result. */
  sourceFailureRate: z.number().min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1').optional(),
});
export type RouteFaults = z.infer<typeof routeFaults>;

/** Fault settings per route name; the key `*` applies to every route without an entry of its own. */
export const faultConfig = z.record(z.string().min(1), routeFaults);
export type FaultConfig = z.infer<typeof faultConfig>;

/** What the injector decided for one request before its handler runs. */
export type FaultDecision = { kind: 'none' } | { kind: 'rateLimitBurst'; retryAfterSeconds: number } | { kind: 'error'; status: 500 | 502 | 503 };

const ERROR_STATUSES = [500, 502, 503] as const;

/** Decides, per request, which configured faults fire; its dice come from the emulator's seeded random. */
export class FaultInjector {
  private config: FaultConfig = {};
  private readonly burstCounters = new Map<string, number>();
  private readonly slowCounters = new Map<string, number>();

  constructor(
    private readonly random: Random,
    initial: FaultConfig = {},
    private readonly onFault: (route: string, fault: InjectedFault) => void = () => undefined,
  ) {
    this.replace(initial);
  }

  /** Replaces the whole configuration and restarts the burst cycles. */
  replace(config: FaultConfig): void {
    this.config = structuredClone(config);
    this.burstCounters.clear();
    this.slowCounters.clear();
  }

  /** A copy of the current configuration. */
  current(): FaultConfig {
    return structuredClone(this.config);
  }

  /** The faults that apply to `route`. */
  forRoute(route: string): RouteFaults {
    return this.config[route] ?? this.config['*'] ?? {};
  }

  /** Real-time delay to add before answering a request on `route`. */
  latencyMs(route: string): number {
    const { latencyMs: latency, slowCalls } = this.forRoute(route);
    let slowMs = 0;
    if (slowCalls) {
      const seen = (this.slowCounters.get(route) ?? 0) + 1;
      this.slowCounters.set(route, seen);
      if (seen % slowCalls.every === 0 && slowCalls.ms > 0) {
        slowMs = slowCalls.ms;
        this.onFault(route, 'slow');
      }
    }
    if (latency === undefined) return slowMs;
    const ms = typeof latency === 'number' ? latency : latency[0] + this.random.next() * (latency[1] - latency[0]);
    if (ms > 0) this.onFault(route, 'latency');
    return ms + slowMs;
  }

  /** Whether the request is refused (429 burst or 5xx) before its handler runs. */
  beforeHandler(route: string): FaultDecision {
    const faults = this.forRoute(route);
    const burst = faults.rateLimitBurst;
    if (burst) {
      const position = this.burstCounters.get(route) ?? 0;
      this.burstCounters.set(route, (position + 1) % (burst.every + burst.count));
      if (position >= burst.every) {
        this.onFault(route, 'rateLimitBurst');
        return { kind: 'rateLimitBurst', retryAfterSeconds: burst.retryAfterSeconds ?? 1 };
      }
    }
    if (faults.errorRate !== undefined && this.random.chance(faults.errorRate)) {
      this.onFault(route, 'error');
      return { kind: 'error', status: ERROR_STATUSES[this.random.int(0, ERROR_STATUSES.length - 1)] ?? 500 };
    }
    return { kind: 'none' };
  }

  /** Whether the connection is destroyed after the handler ran. */
  dropAfterProcessing(route: string): boolean {
    return this.roll(route, this.forRoute(route).dropAfterProcessingRate, 'dropped');
  }

  /** Whether this successful answer's `status` is replaced by a value outside the spec's enum. */
  unknownStatus(route: string): boolean {
    return this.roll(route, this.forRoute(route).unknownStatusRate, 'unknownStatus');
  }

  /** Whether a search source fails on this request (Search and Answer answer 206). */
  sourceFails(route: string): boolean {
    return this.roll(route, this.forRoute(route).sourceFailureRate, 'sourceFailure');
  }

  private roll(route: string, rate: number | undefined, fault: InjectedFault): boolean {
    const fires = rate !== undefined && this.random.chance(rate);
    if (fires) this.onFault(route, fault);
    return fires;
  }
}
