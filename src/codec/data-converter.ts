import { METADATA_ENCODING_KEY, type DataConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import { decode } from '@temporalio/common/lib/encoding';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING, METADATA_ENCRYPTION_KEY_ID } from './aes-gcm-codec';
import type { CodecKeyring } from './keys';

/** The part of the configuration a data converter needs. */
export interface CodecConfigSource {
  codec?: CodecKeyring;
}

/** The codec of the configured keyring, or none when no key is configured. */
export function payloadCodecFromConfig(config: CodecConfigSource): AesGcmPayloadCodec | undefined {
  return config.codec ? new AesGcmPayloadCodec(config.codec) : undefined;
}

/** An encrypted payload reached a client or worker that has no keys configured. */
export class MissingCodecKeysError extends Error {
  constructor(readonly keyId: string | undefined) {
    super(
      `this history's payloads are encrypted${keyId ? ` (key id "${keyId}")` : ''} and PAYLOAD_CODEC_KEYS is not set: set it to the deployment's keys (the same as the worker's) to read them`,
    );
    this.name = 'MissingCodecKeysError';
  }
}

/**
 * The codec of a process without keys: payloads pass unchanged, and an encrypted one is refused with
 * the setting that is missing (Temporal's own message, "Unknown encoding: binary/encrypted", names none).
 */
export class MissingKeysPayloadCodec implements PayloadCodec {
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    for (const payload of payloads) {
      const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
      if (encoding && decode(encoding) === ENCRYPTED_ENCODING) {
        const keyId = payload.metadata?.[METADATA_ENCRYPTION_KEY_ID];
        throw new MissingCodecKeysError(keyId ? decode(keyId) : undefined);
      }
    }
    return payloads;
  }
}

/**
 * The data converter every client and worker of a deployment must share: with `PAYLOAD_CODEC_KEYS`
 * set, payloads (and failure messages) are encrypted; without it, plain payloads as Temporal's default,
 * and an encrypted one names the missing setting. Backends pass it to `new Client({ dataConverter })`.
 */
export function dataConverterFromConfig(config: CodecConfigSource): DataConverter {
  const codec = payloadCodecFromConfig(config);
  if (!codec) return { payloadCodecs: [new MissingKeysPayloadCodec()] };
  return { payloadCodecs: [codec], failureConverterPath: require.resolve('./failure-converter') };
}
