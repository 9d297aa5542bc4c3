import { Counter, Registry } from 'prom-client';

/** Why the intake turned a webhook delivery away (the signature reasons of `verifyWebhookSignature`, and the intake's own). */
export type WebhookRejection =
  'missing' | 'malformed_signature' | 'malformed_timestamp' | 'stale_timestamp' | 'mismatch' | 'route_token' | 'unknown_secret' | 'bad_body';

/** Outcome of one webhook delivery as the metrics count it. */
export type WebhookOutcome = { ok: true; duplicate?: boolean } | { ok: false; reason: WebhookRejection };

/** The intake's Prometheus metrics, in a registry of its own (several intakes in one process do not collide). */
export class IntakeMetrics {
  readonly registry = new Registry();
  readonly #verifications = new Counter({
    name: 'intake_webhook_verifications_total',
    help: 'Webhook deliveries checked by the intake: outcome ok (verified), duplicate (verified, already delivered) or rejected, with the reason',
    labelNames: ['outcome', 'reason'] as const,
    registers: [this.registry],
  });
  readonly #counts = { verified: 0, rejected: 0, duplicates: 0 };

  /** Counts one delivery. */
  record(outcome: WebhookOutcome): void {
    if (outcome.ok) {
      this.#verifications.inc({ outcome: outcome.duplicate ? 'duplicate' : 'ok', reason: '' });
      if (outcome.duplicate) this.#counts.duplicates++;
      else this.#counts.verified++;
    } else {
      this.#verifications.inc({ outcome: 'rejected', reason: outcome.reason });
      this.#counts.rejected++;
    }
  }

  /** Verified, duplicate and rejected deliveries so far. */
  counts(): { verified: number; rejected: number; duplicates: number } {
    return { ...this.#counts };
  }

  /** The Prometheus text exposition. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
