/** Payload encryption: the AES-256-GCM codec, its keyring, the data converter and the UI's codec endpoint. */
export { AesGcmPayloadCodec, ENCRYPTED_ENCODING, METADATA_ENCRYPTION_KEY_ID, PayloadDecryptionError, UnknownCodecKeyError } from './aes-gcm-codec';
export { CODEC_KEY_BYTES, CodecKeyConfigError, parseCodecKeys, type CodecKey, type CodecKeyring } from './keys';
export { dataConverterFromConfig, MissingCodecKeysError, MissingKeysPayloadCodec, payloadCodecFromConfig, type CodecConfigSource } from './data-converter';
export { codecRoutes, isLoopbackOrigin, startCodecServer, type CodecRoutesOptions, type CodecServerOptions, type RunningCodecServer } from './server';
