import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, ValueError, type Payload, type PayloadCodec } from '@temporalio/common';
import { decode, encode } from '@temporalio/common/lib/encoding';
import type { temporal } from '@temporalio/proto';
import type { CodecKeyring } from './keys';

/** `encoding` metadata of an encrypted payload (as in Temporal's encryption sample). */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata naming the key a payload was encrypted with, so keys can rotate. */
export const METADATA_ENCRYPTION_KEY_ID = 'encryption-key-id';

const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A payload names a key id that is not configured (rotated out too early, or another deployment's). */
export class UnknownCodecKeyError extends Error {
  constructor(
    readonly keyId: string,
    known: readonly string[],
  ) {
    super(
      `payload is encrypted with key id "${keyId}", which is not configured (PAYLOAD_CODEC_KEYS has ${known.join(', ')}); add it back to decrypt this history`,
    );
    this.name = 'UnknownCodecKeyError';
  }
}

/** An encrypted payload failed authentication: its bytes were changed, or the key under its id is another one. */
export class PayloadDecryptionError extends Error {
  constructor(readonly keyId: string) {
    super(`payload encrypted with key id "${keyId}" failed authentication: it was altered, or that id now holds a different key`);
    this.name = 'PayloadDecryptionError';
  }
}

/**
 * Temporal's `Payload` message, loaded on first use: its protobuf root is the dearest module to load,
 * and a backend that imports the codec to build its `Client`'s data converter gets it with that client's
 * gRPC stack anyway, later; `research-pipelines/client` stays quick to require.
 */
async function payloadMessage(): Promise<typeof temporal.api.common.v1.Payload> {
  const proto = await import('@temporalio/proto');
  return proto.temporal.api.common.v1.Payload;
}

/**
 * Encrypts whole payloads (data and metadata) with AES-256-GCM under the keyring's active key; decrypts
 * with whichever configured key the payload names. Layout of `data`: 12-byte IV, ciphertext, 16-byte
 * tag; the key id is authenticated too, so moving a payload to another id fails.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  constructor(private readonly keyring: CodecKeyring) {}

  /** Id of the key new payloads are encrypted with. */
  get activeKeyId(): string {
    return this.keyring.activeKeyId;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const keyId = this.keyring.activeKeyId;
    const key = this.keyring.keys.get(keyId)!;
    const message = await payloadMessage();
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(CIPHER, key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(keyId, 'utf8'));
      const plain = message.encode(payload).finish();
      const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: { [METADATA_ENCODING_KEY]: encode(ENCRYPTED_ENCODING), [METADATA_ENCRYPTION_KEY_ID]: encode(keyId) },
        data: new Uint8Array(data),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    const message = await payloadMessage();
    return payloads.map((payload) => {
      const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
      // Payloads written before encryption was turned on pass through unchanged.
      if (!encoding || decode(encoding) !== ENCRYPTED_ENCODING) return payload;
      const idBytes = payload.metadata?.[METADATA_ENCRYPTION_KEY_ID];
      if (!idBytes) throw new ValueError(`encrypted payload has no ${METADATA_ENCRYPTION_KEY_ID} metadata`);
      const keyId = decode(idBytes);
      const key = this.keyring.keys.get(keyId);
      if (!key) throw new UnknownCodecKeyError(keyId, [...this.keyring.keys.keys()]);
      const data = payload.data ?? new Uint8Array();
      if (data.length < IV_BYTES + TAG_BYTES) throw new PayloadDecryptionError(keyId);
      const decipher = createDecipheriv(CIPHER, key, data.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(keyId, 'utf8'));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      let plain: Buffer;
      try {
        plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      } catch {
        throw new PayloadDecryptionError(keyId);
      }
      return message.decode(plain);
    });
  }
}
