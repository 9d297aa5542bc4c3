import { request } from 'undici';
import { signWebhook } from '../../api/webhooks';
import type { TimerHandle } from '../clock';
import type { EmulatorContext } from '../types';
import type { WebhookOptions } from './options';

/** One webhook to deliver: `secret` signs it and is never logged. */
export interface WebhookJob {
  kind: 'task' | 'batch';
  /** The task or batch id (for stats). */
  id: string;
  url: string;
  secret: string;
  body: Record<string, unknown>;
}

interface Delivery extends WebhookJob {
  raw: string;
  duplicate: boolean;
}

/**
 * Delivers completion webhooks: JSON signed over the exact bytes sent (`X-Webhook-Signature`,
 * `X-Webhook-Timestamp`), retried with doubling backoff on the emulator clock after a non-2xx answer or a
 * network error, each attempt bounded in real time. Faults (loss, duplicates, delay, reordering) let a
 * receiver's idempotency and ordering assumptions be tested.
 */
export class WebhookSender {
  readonly #timers = new Set<TimerHandle>();
  readonly #inFlight = new Set<AbortController>();
  #held: Delivery[] = [];
  #holdTimer?: TimerHandle;
  #closed = false;

  constructor(
    private readonly ctx: EmulatorContext,
    private readonly options: WebhookOptions,
  ) {}

  /** Queues a webhook; `delivery_id` (stable across retries and duplicates) is added to its body. */
  send(job: WebhookJob): void {
    if (this.#closed) return;
    const { random, stats } = this.ctx;
    if (random.chance(this.options.loss)) {
      stats.recordWebhook({ kind: job.kind, id: job.id, outcome: 'dropped' });
      return;
    }
    const raw = JSON.stringify({ ...job.body, delivery_id: `whd_${random.hex(24)}` });
    const delivery: Delivery = { ...job, raw, duplicate: random.chance(this.options.duplicate) };
    if (this.options.reorder) this.#hold(delivery);
    else this.#later(this.options.delayMs, () => this.#attempt(delivery, 1));
  }

  /** Cancels pending retries and aborts attempts in flight. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#timers) timer.cancel();
    this.#timers.clear();
    this.#holdTimer?.cancel();
    for (const controller of this.#inFlight) controller.abort();
  }

  #hold(delivery: Delivery): void {
    this.#held.push(delivery);
    if (this.#held.length >= this.options.reorderWindow) {
      this.#release();
    } else if (!this.#holdTimer) {
      this.#holdTimer = this.ctx.clock.setTimeout(() => this.#release(), this.options.reorderHoldMs);
    }
  }

  // Newest first: the receiver sees the held webhooks in the reverse of the order they happened.
  #release(): void {
    this.#holdTimer?.cancel();
    this.#holdTimer = undefined;
    const held = this.#held.reverse();
    this.#held = [];
    for (const delivery of held) this.#later(this.options.delayMs, () => this.#attempt(delivery, 1));
  }

  // Always through the clock, even at 0 ms: a test clock that awaits what its timers return then also
  // awaits the delivery, and close() can cancel anything not yet started.
  #later(ms: number, fn: () => Promise<void>): void {
    const timer = this.ctx.clock.setTimeout(() => {
      this.#timers.delete(timer);
      return fn();
    }, ms);
    this.#timers.add(timer);
  }

  async #attempt(delivery: Delivery, attempt: number): Promise<void> {
    if (this.#closed) return;
    const delivered = await this.#post(delivery);
    if (this.#closed) return;
    const { stats } = this.ctx;
    if (delivered) {
      stats.recordWebhook({ kind: delivery.kind, id: delivery.id, outcome: 'delivered' });
      if (delivery.duplicate && (await this.#post(delivery))) stats.recordWebhook({ kind: delivery.kind, id: delivery.id, outcome: 'duplicated' });
      return;
    }
    if (attempt >= this.options.maxAttempts) {
      stats.recordWebhook({ kind: delivery.kind, id: delivery.id, outcome: 'failed' });
      return;
    }
    this.#later(this.options.backoffMs * 2 ** (attempt - 1), () => this.#attempt(delivery, attempt + 1));
  }

  /** One POST; true on a 2xx answer. Each attempt is signed afresh, so its timestamp is current. */
  async #post(delivery: Delivery): Promise<boolean> {
    const controller = new AbortController();
    this.#inFlight.add(controller);
    const timeout = setTimeout(() => controller.abort(), this.options.attemptTimeoutMs);
    timeout.unref();
    try {
      const signed = signWebhook({ secret: delivery.secret, body: delivery.raw, timestamp: Math.floor(this.ctx.clock.now() / 1000) });
      const event = typeof delivery.body.event === 'string' ? delivery.body.event : 'unknown';
      const response = await request(delivery.url, {
        method: 'POST',
        body: delivery.raw,
        headers: { 'content-type': 'application/json', 'user-agent': 'research-emulator-webhooks/1', 'x-webhook-event': event, ...signed.headers },
        // A fresh connection per attempt: nothing lingers to keep a process or a receiver's server alive.
        reset: true,
        signal: controller.signal,
      });
      await response.body.dump();
      return response.statusCode >= 200 && response.statusCode < 300;
    } catch {
      return false;
    } finally {
      clearTimeout(timeout);
      this.#inFlight.delete(controller);
    }
  }
}
