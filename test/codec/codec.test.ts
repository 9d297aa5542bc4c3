import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, METADATA_ENCODING_KEY } from '@temporalio/common';
import { decode } from '@temporalio/common/lib/encoding';
import {
  AesGcmPayloadCodec,
  dataConverterFromConfig,
  MissingCodecKeysError,
  parseCodecKeys,
  PayloadDecryptionError,
  UnknownCodecKeyError,
} from '../../src/codec';
import { ConfigError, loadConfig } from '../../src/config';

const key = () => randomBytes(32).toString('base64');
const K1 = key();
const K2 = key();
const secretInput = { query: 'Acme acquisition rumours, confidential', apiKey: 'rk_live_secret_value_123' };

function codecOf(keys: string, active?: string): AesGcmPayloadCodec {
  return new AesGcmPayloadCodec(parseCodecKeys(keys, active));
}

describe('AesGcmPayloadCodec', () => {
  test('encrypts a payload (no plaintext, binary/encrypted, key id) and decrypts it back', async () => {
    const codec = codecOf(`k1:${K1}`);
    const payload = defaultPayloadConverter.toPayload(secretInput);
    const [encoded] = await codec.encode([payload]);
    expect(decode(encoded!.metadata![METADATA_ENCODING_KEY]!)).toBe('binary/encrypted');
    expect(decode(encoded!.metadata!['encryption-key-id']!)).toBe('k1');
    expect(Buffer.from(encoded!.data!).toString('latin1')).not.toContain('Acme');
    expect(Buffer.from(encoded!.data!).toString('latin1')).not.toContain('json/plain');
    const [decoded] = await codec.decode([encoded!]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual(secretInput);
  });

  test('the same value encrypts differently each time (fresh IV)', async () => {
    const codec = codecOf(`k1:${K1}`);
    const payload = defaultPayloadConverter.toPayload('same');
    const [a, b] = await codec.encode([payload, payload]);
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
  });

  test('after a rotation old payloads decode with the old key and new ones use the new key', async () => {
    const before = codecOf(`k1:${K1}`);
    const [old] = await before.encode([defaultPayloadConverter.toPayload('written under k1')]);
    const rotated = codecOf(`k2:${K2},k1:${K1}`);
    expect(rotated.activeKeyId).toBe('k2');
    const [fresh] = await rotated.encode([defaultPayloadConverter.toPayload('written under k2')]);
    expect(decode(fresh!.metadata!['encryption-key-id']!)).toBe('k2');
    const decoded = await rotated.decode([old!, fresh!]);
    expect(decoded.map((payload) => defaultPayloadConverter.fromPayload(payload))).toEqual(['written under k1', 'written under k2']);
    // PAYLOAD_CODEC_KEY_ID picks another active key.
    expect(codecOf(`k2:${K2},k1:${K1}`, 'k1').activeKeyId).toBe('k1');
  });

  test('a changed byte fails authentication with an error naming the key id', async () => {
    const codec = codecOf(`k1:${K1}`);
    const [encoded] = await codec.encode([defaultPayloadConverter.toPayload(secretInput)]);
    const data = Buffer.from(encoded!.data!);
    data[20] = data[20]! ^ 1;
    await expect(codec.decode([{ ...encoded!, data: new Uint8Array(data) }])).rejects.toThrow(PayloadDecryptionError);
    await expect(codec.decode([{ ...encoded!, data: new Uint8Array(data) }])).rejects.toThrow(/key id "k1" failed authentication/);
  });

  test('a payload moved under another configured key id fails (the id is authenticated)', async () => {
    const codec = codecOf(`k1:${K1},k2:${K1}`);
    const [encoded] = await codec.encode([defaultPayloadConverter.toPayload('x')]);
    const moved = { ...encoded!, metadata: { ...encoded!.metadata, 'encryption-key-id': new TextEncoder().encode('k2') } };
    await expect(codec.decode([moved])).rejects.toThrow(PayloadDecryptionError);
  });

  test('an unknown key id is a clear error naming it and the configured ids', async () => {
    const [old] = await codecOf(`k0:${key()}`).encode([defaultPayloadConverter.toPayload('x')]);
    const codec = codecOf(`k2:${K2},k1:${K1}`);
    await expect(codec.decode([old!])).rejects.toThrow(UnknownCodecKeyError);
    await expect(codec.decode([old!])).rejects.toThrow('payload is encrypted with key id "k0", which is not configured (PAYLOAD_CODEC_KEYS has k2, k1)');
  });

  test('payloads written before encryption pass through decode unchanged', async () => {
    const plain = defaultPayloadConverter.toPayload({ a: 1 });
    expect(await codecOf(`k1:${K1}`).decode([plain])).toEqual([plain]);
  });
});

describe('a client or worker without keys', () => {
  const keyless = dataConverterFromConfig({}).payloadCodecs![0]!;

  test("reads plain payloads as Temporal's default does", async () => {
    const plain = [defaultPayloadConverter.toPayload(secretInput)];
    expect(await keyless.decode(plain)).toEqual(plain);
    expect(await keyless.encode(plain)).toEqual(plain);
  });

  test('refuses an encrypted payload naming the missing setting and the key id, not "Unknown encoding"', async () => {
    const encrypted = await codecOf(`k2:${K1}`).encode([defaultPayloadConverter.toPayload(secretInput)]);
    const refusal = keyless.decode(encrypted);
    await expect(refusal).rejects.toBeInstanceOf(MissingCodecKeysError);
    await expect(refusal).rejects.toThrow('this history\'s payloads are encrypted (key id "k2") and PAYLOAD_CODEC_KEYS is not set');
  });
});

describe('codec key configuration', () => {
  function issues(env: Record<string, string>): string {
    try {
      loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.message;
      throw error;
    }
    throw new Error('expected a ConfigError');
  }

  test.each([
    [
      'a key of the wrong size',
      { PAYLOAD_CODEC_KEYS: `k1:${randomBytes(16).toString('base64')}` },
      'PAYLOAD_CODEC_KEYS: key "k1" must be base64 of exactly 32 bytes (AES-256), got 16 bytes',
    ],
    ['an entry without an id', { PAYLOAD_CODEC_KEYS: K1 }, 'PAYLOAD_CODEC_KEYS: entry 1 must be id:<base64 of 32 bytes>'],
    ['a key that is not base64', { PAYLOAD_CODEC_KEYS: 'k1:not base64!' }, 'PAYLOAD_CODEC_KEYS: key "k1" must be base64 of exactly 32 bytes'],
    ['a repeated id', { PAYLOAD_CODEC_KEYS: `k1:${K1},k1:${K2}` }, 'PAYLOAD_CODEC_KEYS: key id "k1" appears twice'],
    [
      'an active id that is not listed',
      { PAYLOAD_CODEC_KEYS: `k1:${K1}`, PAYLOAD_CODEC_KEY_ID: 'k9' },
      'PAYLOAD_CODEC_KEY_ID: "k9" must be one of the key ids in PAYLOAD_CODEC_KEYS (k1)',
    ],
    ['an active id without keys', { PAYLOAD_CODEC_KEY_ID: 'k1' }, 'PAYLOAD_CODEC_KEYS: is required when PAYLOAD_CODEC_KEY_ID is set'],
  ])('%s is refused naming the variable and the rule', (_name, env, message) => {
    expect(issues(env)).toContain(message);
  });

  test('the keys never show when the configuration is printed or serialised', () => {
    const config = loadConfig({ PAYLOAD_CODEC_KEYS: `k1:${K1}` });
    expect(config.codec?.activeKeyId).toBe('k1');
    expect(JSON.stringify(config)).not.toContain(K1);
    expect(Object.keys(config)).not.toContain('codec');
  });
});
