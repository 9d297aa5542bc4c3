import { z } from 'zod';

/** A token bucket: `requestsPerSecond` sustained, `burst` at once. */
export const rateLimitRule = z.strictObject({
  requestsPerSecond: z.number().positive('must be a positive number'),
  burst: z.int().positive('must be a positive integer'),
});
export type RateLimitRule = z.infer<typeof rateLimitRule>;

/**
 * Per-key rate limiting. The default rule covers all routes through one bucket per key; `routes`
 * overrides it for named routes (their own bucket per key), and `false` exempts a route.
 */
export const rateLimitConfig = rateLimitRule.extend({
  routes: z.record(z.string().min(1), z.union([rateLimitRule, z.literal(false)])).optional(),
});
export type RateLimitConfig = z.infer<typeof rateLimitConfig>;

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Token buckets on the emulator clock (time-dependent like everything else in the emulator). */
export class RateLimiter {
  // Keyed by bucket name and account organisation + key; never logged.
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly config: RateLimitConfig | undefined,
    private readonly now: () => number,
  ) {}

  /** Takes one token for `key` on `route`; returns undefined when allowed, else the seconds to wait. */
  take(key: string, route: string): number | undefined {
    if (!this.config) return undefined;
    const override = this.config.routes?.[route];
    if (override === false) return undefined;
    const rule = override ?? this.config;
    const bucketName = `${override ? route : '*'}\u0000${key}`;
    const now = this.now();
    const bucket = this.buckets.get(bucketName) ?? { tokens: rule.burst, updatedAt: now };
    bucket.tokens = Math.min(rule.burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * rule.requestsPerSecond);
    bucket.updatedAt = now;
    this.buckets.set(bucketName, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rule.requestsPerSecond));
  }
}
