import { createHmac } from 'node:crypto';
import { inspect } from 'node:util';
import {
  WebhookSignatureError,
  assertWebhookSignature,
  generateWebhookSecret,
  signWebhook,
  verifyWebhookSignature,
  webhookHeaderNames,
} from '../../src/api/webhooks';

const secret = 'a'.repeat(32) + 'b'.repeat(32);
const timestamp = 1_735_689_600; // 2025-01-01T00:00:00Z
const now = timestamp * 1000;
// Key order and spacing that JSON.stringify would not reproduce, to catch any re-serialisation.
const body = '{"task_id": "t_1",  "status":"completed", "note":"café ☕"}';

function signed(overrides: Partial<Parameters<typeof verifyWebhookSignature>[0]> = {}) {
  const { signature } = signWebhook({ secret, body, timestamp });
  return verifyWebhookSignature({ secret, signature, timestamp: String(timestamp), body, now, ...overrides });
}

describe('signWebhook', () => {
  test('signs `<timestamp>.<raw body>` with HMAC-SHA256 and a sha256= prefix', () => {
    const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
    expect(signWebhook({ secret, body, timestamp })).toEqual({
      signature: `sha256=${expected}`,
      timestamp: String(timestamp),
      headers: { 'X-Webhook-Signature': `sha256=${expected}`, 'X-Webhook-Timestamp': String(timestamp) },
    });
  });

  test('defaults the timestamp to the current Unix second', () => {
    const before = Math.floor(Date.now() / 1000);
    const result = signWebhook({ secret, body });
    expect(Number(result.timestamp)).toBeGreaterThanOrEqual(before);
    expect(Number(result.timestamp)).toBeLessThanOrEqual(before + 1);
  });

  test('rejects a timestamp that is not whole seconds', () => {
    expect(() => signWebhook({ secret, body, timestamp: 1.5 })).toThrow(TypeError);
  });

  test('names the headers the service sends', () => {
    expect(webhookHeaderNames).toEqual({ signature: 'X-Webhook-Signature', timestamp: 'X-Webhook-Timestamp' });
  });
});

describe('verifyWebhookSignature', () => {
  test('accepts a good signature', () => {
    expect(signed()).toEqual({ ok: true });
  });

  test('gives the same result for a Buffer, a Uint8Array and a string body', () => {
    const bytes = Buffer.from(body, 'utf8');
    expect(signed({ body: bytes })).toEqual({ ok: true });
    expect(signed({ body: new Uint8Array(bytes) })).toEqual({ ok: true });
    expect(signWebhook({ secret, body: bytes, timestamp }).signature).toBe(signWebhook({ secret, body, timestamp }).signature);
  });

  test('rejects a tampered body', () => {
    expect(signed({ body: body.replace('completed', 'failed') })).toEqual({ ok: false, reason: 'mismatch' });
  });

  test('rejects a re-serialised body', () => {
    expect(signed({ body: JSON.stringify(JSON.parse(body)) })).toEqual({ ok: false, reason: 'mismatch' });
  });

  test('rejects the wrong secret', () => {
    expect(signed({ secret: generateWebhookSecret() })).toEqual({ ok: false, reason: 'mismatch' });
  });

  test('rejects a signature made for another timestamp', () => {
    const { signature } = signWebhook({ secret, body, timestamp: timestamp - 1 });
    expect(signed({ signature })).toEqual({ ok: false, reason: 'mismatch' });
  });

  test('accepts an uppercase hex digest', () => {
    const { signature } = signWebhook({ secret, body, timestamp });
    expect(signed({ signature: `sha256=${signature.slice(7).toUpperCase()}` })).toEqual({ ok: true });
  });

  test('rejects a stale timestamp beyond the tolerance', () => {
    expect(signed({ now: now + 301_000 })).toEqual({ ok: false, reason: 'stale_timestamp' });
    expect(signed({ now: now + 300_000 })).toEqual({ ok: true });
  });

  test('rejects a future timestamp beyond the tolerance', () => {
    expect(signed({ now: now - 301_000 })).toEqual({ ok: false, reason: 'stale_timestamp' });
    expect(signed({ now: now - 300_000 })).toEqual({ ok: true });
  });

  test('honours a custom tolerance', () => {
    expect(signed({ now: now + 61_000, toleranceSeconds: 60 })).toEqual({ ok: false, reason: 'stale_timestamp' });
  });

  test.each([
    ['no sha256= prefix', (hex: string) => hex],
    ['another algorithm prefix', (hex: string) => `sha1=${hex}`],
    ['non-hex characters', (hex: string) => `sha256=${hex.slice(0, 63)}g`],
    ['a short digest', (hex: string) => `sha256=${hex.slice(0, 62)}`],
    ['a long digest', (hex: string) => `sha256=${hex}00`],
    ['surrounding whitespace', (hex: string) => ` sha256=${hex}`],
  ])('rejects a malformed signature: %s', (_name, mangle) => {
    const hex = signWebhook({ secret, body, timestamp }).signature.slice('sha256='.length);
    expect(signed({ signature: mangle(hex) })).toEqual({ ok: false, reason: 'malformed_signature' });
  });

  test('rejects a repeated signature header as malformed', () => {
    const { signature } = signWebhook({ secret, body, timestamp });
    expect(signed({ signature: [signature, signature] })).toEqual({ ok: false, reason: 'malformed_signature' });
    expect(signed({ signature: [signature] })).toEqual({ ok: true });
  });

  test.each(['1735689600000.5', 'abc', '-1735689600', '2025-01-01T00:00:00Z'])('rejects malformed timestamp %j', (value) => {
    expect(signed({ timestamp: value })).toEqual({ ok: false, reason: 'malformed_timestamp' });
  });

  test.each([
    ['secret', { secret: '' }],
    ['signature', { signature: undefined }],
    ['empty signature', { signature: '' }],
    ['timestamp', { timestamp: null }],
    ['body', { body: undefined }],
  ])('reports a missing %s', (_name, overrides) => {
    expect(signed(overrides)).toEqual({ ok: false, reason: 'missing' });
  });

  test('accepts an empty body that was signed', () => {
    const { signature } = signWebhook({ secret, body: '', timestamp });
    expect(signed({ signature, body: '' })).toEqual({ ok: true });
  });
});

describe('assertWebhookSignature', () => {
  test('passes a good signature', () => {
    const { signature } = signWebhook({ secret, body, timestamp });
    expect(() => assertWebhookSignature({ secret, signature, timestamp: String(timestamp), body, now })).not.toThrow();
  });

  test('throws WebhookSignatureError with the reason, and no secret or signature in it', () => {
    const { signature } = signWebhook({ secret, body: 'other', timestamp });
    let thrown: unknown;
    try {
      assertWebhookSignature({ secret, signature, timestamp: String(timestamp), body, now });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(WebhookSignatureError);
    const error = thrown as WebhookSignatureError;
    expect(error.reason).toBe('mismatch');
    expect(error.name).toBe('WebhookSignatureError');
    for (const rendering of [error.message, String(error), JSON.stringify(error), inspect(error, { showHidden: true })]) {
      expect(rendering).not.toContain(secret);
      expect(rendering).not.toContain(signature.slice(7));
    }
  });
});

describe('generateWebhookSecret', () => {
  test('returns 64 random hex characters', () => {
    const first = generateWebhookSecret();
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(generateWebhookSecret()).not.toBe(first);
  });
});
