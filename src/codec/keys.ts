/** One AES-256 key and the id written beside every payload it encrypts. */
export interface CodecKey {
  readonly id: string;
  readonly key: Buffer;
}

/** The keys a codec may decrypt with, and the one it encrypts with. */
export interface CodecKeyring {
  /** Id of the key new payloads are encrypted with. */
  readonly activeKeyId: string;
  /** Every configured key by id (the active one and older ones still needed to read old histories). */
  readonly keys: ReadonlyMap<string, Buffer>;
}

/** AES-256 takes a 32-byte key. */
export const CODEC_KEY_BYTES = 32;

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A keyring's configuration broke a rule; `message` states the rule, never a key. */
export class CodecKeyConfigError extends Error {
  constructor(
    readonly variable: 'PAYLOAD_CODEC_KEYS' | 'PAYLOAD_CODEC_KEY_ID',
    message: string,
  ) {
    super(message);
    this.name = 'CodecKeyConfigError';
  }
}

/**
 * Parses `PAYLOAD_CODEC_KEYS` (`id:<base64 of 32 bytes>` entries, comma separated, the first active
 * unless `activeKeyId` names another). Throws `CodecKeyConfigError` naming the variable and the rule.
 */
export function parseCodecKeys(text: string, activeKeyId?: string): CodecKeyring {
  const keys = new Map<string, Buffer>();
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new CodecKeyConfigError('PAYLOAD_CODEC_KEYS', 'must list at least one key as id:<base64 of 32 bytes>');
  entries.forEach((entry, index) => {
    const colon = entry.indexOf(':');
    const where = `entry ${index + 1}`;
    if (colon <= 0) throw new CodecKeyConfigError('PAYLOAD_CODEC_KEYS', `${where} must be id:<base64 of 32 bytes> (e.g. k1:$(openssl rand -base64 32))`);
    const id = entry.slice(0, colon);
    const encoded = entry.slice(colon + 1);
    if (!KEY_ID.test(id))
      throw new CodecKeyConfigError('PAYLOAD_CODEC_KEYS', `${where}: key id "${id}" must be 1-64 letters, digits, dots, dashes or underscores`);
    if (keys.has(id)) throw new CodecKeyConfigError('PAYLOAD_CODEC_KEYS', `key id "${id}" appears twice: each key needs its own id`);
    const key = BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : undefined;
    if (!key || key.length !== CODEC_KEY_BYTES) {
      throw new CodecKeyConfigError(
        'PAYLOAD_CODEC_KEYS',
        `key "${id}" must be base64 of exactly ${CODEC_KEY_BYTES} bytes (AES-256)${key ? `, got ${key.length} bytes` : ''}`,
      );
    }
    keys.set(id, key);
  });
  const active = activeKeyId ?? entries[0]!.slice(0, entries[0]!.indexOf(':'));
  if (!keys.has(active)) {
    throw new CodecKeyConfigError('PAYLOAD_CODEC_KEY_ID', `"${active}" must be one of the key ids in PAYLOAD_CODEC_KEYS (${[...keys.keys()].join(', ')})`);
  }
  return { activeKeyId: active, keys };
}
