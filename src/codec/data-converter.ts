import type { DataConverter } from '@temporalio/common';
import { AesGcmPayloadCodec } from './aes-gcm-codec';
import type { CodecKeyring } from './keys';

/** The part of the configuration a data converter needs. */
export interface CodecConfigSource {
  codec?: CodecKeyring;
}

/** The codec of the configured keyring, or none when no key is configured. */
export function payloadCodecFromConfig(config: CodecConfigSource): AesGcmPayloadCodec | undefined {
  return config.codec ? new AesGcmPayloadCodec(config.codec) : undefined;
}

/**
 * The data converter every client and worker of a deployment must share: with `PAYLOAD_CODEC_KEYS`
 * set, payloads (and failure messages) are encrypted; without it, Temporal's default (`{}`). Backends
 * pass it to `new Client({ dataConverter })`.
 */
export function dataConverterFromConfig(config: CodecConfigSource): DataConverter {
  const codec = payloadCodecFromConfig(config);
  if (!codec) return {};
  return { payloadCodecs: [codec], failureConverterPath: require.resolve('./failure-converter') };
}
