import { verifyWebhookSignature } from '../../src/api/webhooks';
import type { ResearchOptionsInput } from '../../src/emulator/research';
import {
  minutes,
  type ReceivedWebhook,
  type ResearchHarness,
  startResearchHarness,
  startWebhookReceiver,
  type WebhookReceiver,
  textField,
} from '../support/research-harness';

const QUERY = 'Outlook for offshore wind auctions in the North Sea';

describe('DeepResearch completion webhooks', () => {
  let h: ResearchHarness;
  let receiver: WebhookReceiver;
  afterEach(async () => {
    await h.close();
    await receiver.close();
  });

  async function setUp(options: ResearchOptionsInput = {}, statuses: number[] = []): Promise<void> {
    receiver = await startWebhookReceiver(statuses);
    h = await startResearchHarness(options);
  }

  // Webhook attempts are real HTTP: advance emulator time in steps until the receiver has seen `count`.
  async function advanceUntilReceived(count: number, stepMs: number): Promise<ReceivedWebhook[]> {
    for (let step = 0; step < 40 && receiver.received.length < count; step++) {
      await h.advance(stepMs);
      await receiver.waitFor(count, 100).catch(() => undefined);
    }
    return receiver.waitFor(count, 1_000);
  }

  // The sender records its stats after it reads the receiver's answer, a moment after the receiver sees the request.
  async function webhookStats(expected: Record<string, number>): Promise<void> {
    for (let poll = 0; poll < 100; poll++) {
      const actual = new Map(Object.entries(h.emulator.stats.snapshot().webhooks));
      if (Object.entries(expected).every(([key, value]) => actual.get(key) === value)) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(h.emulator.stats.snapshot().webhooks).toMatchObject(expected);
  }

  function verifies(webhook: ReceivedWebhook, secret: string): boolean {
    return verifyWebhookSignature({
      secret,
      signature: webhook.headers['x-webhook-signature'],
      timestamp: webhook.headers['x-webhook-timestamp'],
      body: webhook.raw,
      now: h.clock.now(),
    }).ok;
  }

  test('a completed task posts a signed webhook that verifies with the secret returned once at creation', async () => {
    await setUp();
    const created = await h.client.createTask({ query: QUERY, mode: 'fast', webhook_url: receiver.url, metadata: { item: 7 } });
    const secret = String(created.webhook_secret);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await h.client.getTask(created.deepresearch_id))).not.toContain(secret);
    expect(JSON.stringify(await h.client.listTasks())).not.toContain(secret);

    const [webhook] = await advanceUntilReceived(1, minutes(3));
    expect(webhook!.headers['x-webhook-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(webhook!.headers['x-webhook-timestamp']).toBe(String(Date.UTC(2025, 0, 1, 0, 3) / 1000));
    expect(verifies(webhook!, secret)).toBe(true);
    expect(verifies({ ...webhook!, raw: Buffer.from(webhook!.raw.toString().replace('completed', 'failed')) }, secret)).toBe(false);
    expect(verifies(webhook!, 'f'.repeat(64))).toBe(false);
    expect(webhook!.json).toEqual({
      event: 'task.completed',
      deepresearch_id: created.deepresearch_id,
      status: 'completed',
      mode: 'fast',
      created_at: '2025-01-01T00:00:00.000Z',
      completed_at: '2025-01-01T00:03:00.000Z',
      cost: 0.1,
      metadata: { item: 7 },
      timestamp: '2025-01-01T00:03:00.000Z',
      delivery_id: expect.stringMatching(/^whd_[0-9a-f]{24}$/),
    });
    await webhookStats({ delivered: 1, failed: 0, dropped: 0, duplicated: 0 });
  });

  test('a failed task posts a task.failed webhook with its error', async () => {
    await setUp({ failureRate: 1 });
    const created = await h.client.createTask({ query: QUERY, mode: 'fast', webhook_url: receiver.url });
    const [webhook] = await advanceUntilReceived(1, minutes(3));
    expect(webhook!.json).toMatchObject({ event: 'task.failed', status: 'failed', deepresearch_id: created.deepresearch_id, error: expect.any(String) });
    expect(verifies(webhook!, String(created.webhook_secret))).toBe(true);
  });

  test('a cancelled task sends no webhook', async () => {
    await setUp();
    const created = await h.client.createTask({ query: QUERY, mode: 'fast', webhook_url: receiver.url });
    await h.client.cancelTask(created.deepresearch_id);
    await h.advance(minutes(10));
    await expect(receiver.waitFor(1, 200)).rejects.toThrow('expected 1 webhooks, got 0');
    expect(h.emulator.stats.snapshot().webhooks.delivered).toBe(0);
  });

  test('a webhook answered with 500 and 503 is retried with backoff until it is accepted', async () => {
    await setUp({ webhooks: { backoffMs: 30_000 } }, [500, 503]);
    const created = await h.client.createTask({ query: QUERY, mode: 'fast', webhook_url: receiver.url });
    await advanceUntilReceived(1, minutes(3));
    const attempts = await advanceUntilReceived(3, 10_000);
    const ids = new Set(attempts.map((attempt) => attempt.json.delivery_id));
    expect(ids.size).toBe(1);
    const times = attempts.map((attempt) => Number(attempt.headers['x-webhook-timestamp']));
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(30);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(60);
    for (const attempt of attempts) expect(verifies(attempt, String(created.webhook_secret))).toBe(true);
    await webhookStats({ delivered: 1, failed: 0 });
  });

  test('a receiver that never accepts gets maxAttempts tries, then the webhook counts as failed', async () => {
    await setUp({ webhooks: { maxAttempts: 2, backoffMs: 10_000 } }, [500, 500, 500]);
    await h.client.createTask({ query: QUERY, mode: 'fast', webhook_url: receiver.url });
    await advanceUntilReceived(2, minutes(3));
    for (let step = 0; step < 20 && h.emulator.stats.snapshot().webhooks.failed === 0; step++) {
      await h.advance(minutes(1));
      await receiver.waitFor(3, 50).catch(() => undefined);
    }
    expect(h.emulator.stats.snapshot().webhooks).toMatchObject({ delivered: 0, failed: 1 });
    expect(receiver.received.length).toBe(2);
  });

  test('a network error is retried like a failed answer', async () => {
    await setUp({ webhooks: { maxAttempts: 2, backoffMs: 10_000 } });
    const closed = await startWebhookReceiver();
    await closed.close();
    await h.client.createTask({ query: QUERY, mode: 'fast', webhook_url: closed.url });
    for (let step = 0; step < 40 && h.emulator.stats.snapshot().webhooks.failed === 0; step++) {
      await h.advance(minutes(1));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(h.emulator.stats.snapshot().webhooks).toMatchObject({ delivered: 0, failed: 1 });
  });

  test('with loss 1 no webhook is ever sent and each counts as dropped', async () => {
    await setUp({ webhooks: { loss: 1 } });
    await h.client.createTask({ query: QUERY, mode: 'fast', webhook_url: receiver.url });
    await h.advance(minutes(10));
    await expect(receiver.waitFor(1, 200)).rejects.toThrow();
    expect(h.emulator.stats.snapshot().webhooks).toMatchObject({ delivered: 0, dropped: 1 });
  });

  test('with duplicate 1 each webhook arrives twice with the same delivery id and valid signatures', async () => {
    await setUp({ webhooks: { duplicate: 1 } });
    const created = await h.client.createTask({ query: QUERY, mode: 'fast', webhook_url: receiver.url });
    const [first, second] = await advanceUntilReceived(2, minutes(3));
    expect(second!.json.delivery_id).toBe(first!.json.delivery_id);
    expect(second!.raw.equals(first!.raw)).toBe(true);
    expect(verifies(second!, String(created.webhook_secret))).toBe(true);
    await webhookStats({ delivered: 1, duplicated: 1 });
  });

  test('with a delay the webhook is held for that long in emulator time', async () => {
    await setUp({ webhooks: { delayMs: minutes(2) } });
    await h.client.createTask({ query: QUERY, mode: 'fast', webhook_url: receiver.url });
    await h.advance(minutes(4));
    await expect(receiver.waitFor(1, 200)).rejects.toThrow();
    const [webhook] = await advanceUntilReceived(1, minutes(1));
    expect(webhook!.headers['x-webhook-timestamp']).toBe(String(Date.UTC(2025, 0, 1, 0, 5) / 1000));
  });

  test('with reorder on, held webhooks are released newest first', async () => {
    await setUp({ webhooks: { reorder: true, reorderWindow: 3 } });
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) {
      ids.push((await h.client.createTask({ query: `${QUERY} ${index}`, mode: 'fast', webhook_url: receiver.url })).deepresearch_id);
      await h.advance(10_000);
    }
    const received = await advanceUntilReceived(3, minutes(3));
    expect(received.map((webhook) => webhook.json.deepresearch_id)).toEqual([...ids].reverse());
  });

  test('a webhook_url over plain HTTP to a public host is refused with 400', async () => {
    await setUp();
    const refused = await h.call('POST', '/deepresearch/tasks', { query: QUERY, webhook_url: 'http://example.com/hook' });
    expect(refused.status).toBe(400);
    expect(textField(refused.json, 'error')).toContain('webhook_url: must be an HTTPS URL');
  });
});
