import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inspect } from 'node:util';

/**
 * Webhook secrets of tasks and batches, by task or batch id. They are returned once, at creation, and the
 * intake needs them to verify signatures, so they live here: never in workflow history or logs.
 */
export interface WebhookSecretStore {
  /** Keeps the secret of a task or batch. */
  put(id: string, secret: string): Promise<void>;
  /** The secret of a task or batch, or undefined when none is kept. */
  get(id: string): Promise<string | undefined>;
  /** Forgets the secret (idempotent). */
  delete(id: string): Promise<void>;
}

/** Secrets in memory: for tests and a worker that runs the intake in the same process. */
export class InMemoryWebhookSecretStore implements WebhookSecretStore {
  readonly #secrets = new Map<string, string>();

  /** Keeps the secret. */
  async put(id: string, secret: string): Promise<void> {
    this.#secrets.set(id, secret);
  }

  /** The kept secret, if any. */
  async get(id: string): Promise<string | undefined> {
    return this.#secrets.get(id);
  }

  /** Forgets the secret. */
  async delete(id: string): Promise<void> {
    this.#secrets.delete(id);
  }

  /** Shows the count, never a secret. */
  toJSON(): Record<string, unknown> {
    return { secrets: this.#secrets.size };
  }

  [inspect.custom](): string {
    return `InMemoryWebhookSecretStore(${this.#secrets.size} secrets)`;
  }
}

/**
 * One file per id under `dir` (created with mode 0700), each written atomically with mode 0600 so only
 * the worker's user can read it; the worker and the intake can share the directory.
 */
export class FileWebhookSecretStore implements WebhookSecretStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = path.resolve(dir);
  }

  /** Keeps the secret in `<dir>/<id>.secret`. */
  async put(id: string, secret: string): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const file = this.#fileOf(id);
    const temp = path.join(this.dir, `.${randomUUID()}.tmp`);
    // Created 0600 from the first byte; chmod again because the umask can only remove bits, never add.
    await writeFile(temp, secret, { mode: 0o600, flag: 'wx' });
    await chmod(temp, 0o600);
    await rename(temp, file);
  }

  /** The kept secret, or undefined when there is no file for the id. */
  async get(id: string): Promise<string | undefined> {
    try {
      return await readFile(this.#fileOf(id), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Removes the file. */
  async delete(id: string): Promise<void> {
    await rm(this.#fileOf(id), { force: true });
  }

  /** Ids are the service's; any id that is not a plain token is hashed so it can never name another path. */
  #fileOf(id: string): string {
    const name = /^[A-Za-z0-9_-]{1,200}$/.test(id) ? id : `sha256-${createHash('sha256').update(id).digest('hex')}`;
    return path.join(this.dir, `${name}.secret`);
  }

  toJSON(): Record<string, unknown> {
    return { dir: this.dir };
  }
}

/**
 * What {@link EncryptedWebhookSecretStore} needs of a store: the artifact store's `put`, `get` and `stat`
 * (any `ArtifactStore` fits), and `delete` when the store has one.
 */
export interface SecretRecordStore {
  put(key: string, data: string, contentType: string): Promise<unknown>;
  /** The bytes under `key`; rejects when there are none. */
  get(key: string): Promise<Uint8Array>;
  /** Something when `key` holds a record, undefined when not. */
  stat(key: string): Promise<unknown>;
  delete?(key: string): Promise<void>;
}

/** A kept record that cannot give its secret: a wrong INTAKE_KEY, a changed record, or not a record at all. */
export class WebhookSecretRecordError extends Error {
  constructor(
    readonly id: string,
    reason: string,
  ) {
    super(`webhook secret of ${JSON.stringify(id)} cannot be read: ${reason}`);
    this.name = 'WebhookSecretRecordError';
  }
}

/** Where the records live in the store: `webhook-secrets/<id>.json`. */
export const WEBHOOK_SECRET_PREFIX = 'webhook-secrets';

const RECORD_VERSION = 1;
// Fixed HKDF salt and info: the key is INTAKE_KEY's, for this one use; a new record format gets a new info.
const HKDF_SALT = 'research-pipelines/webhook-secrets';
const HKDF_INFO = 'webhook secret record v1 (AES-256-GCM)';

interface SealedRecord {
  v: 1;
  alg: 'A256GCM';
  iv: string;
  tag: string;
  data: string;
}

/** What `delete` leaves when the store cannot delete: the secret is gone, only the id stays. */
interface Tombstone {
  v: 1;
  deleted: true;
}

/**
 * Webhook secrets kept in the artifact store, so a worker and an intake on different hosts share them
 * through the store alone. Each secret is sealed with AES-256-GCM under a key derived from INTAKE_KEY by
 * HKDF-SHA256 (the worker's and the intake's INTAKE_KEY must match), with the task or batch id as
 * associated data: the store never holds a secret in plaintext, and a record moved to another id, changed,
 * or read with another INTAKE_KEY fails with {@link WebhookSecretRecordError} (which never shows a secret).
 * A store without `delete` gets the record overwritten by a tombstone that holds no secret.
 */
export class EncryptedWebhookSecretStore implements WebhookSecretStore {
  readonly #store: SecretRecordStore;
  readonly #key: Buffer;

  constructor(store: SecretRecordStore, intakeKey: string) {
    if (!intakeKey) throw new Error('EncryptedWebhookSecretStore needs INTAKE_KEY');
    this.#store = store;
    this.#key = Buffer.from(hkdfSync('sha256', intakeKey, HKDF_SALT, HKDF_INFO, 32));
  }

  /** Seals the secret and writes its record (replacing any earlier one at once). */
  async put(id: string, secret: string): Promise<void> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(associatedData(id));
    const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    const record: SealedRecord = {
      v: RECORD_VERSION,
      alg: 'A256GCM',
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    };
    await this.#store.put(recordKey(id), JSON.stringify(record), 'application/json');
  }

  /** The secret, undefined when no record is kept (or it was deleted); throws when the record cannot be opened. */
  async get(id: string): Promise<string | undefined> {
    const key = recordKey(id);
    if ((await this.#store.stat(key)) === undefined) return undefined;
    const record = parseRecord(id, Buffer.from(await this.#store.get(key)).toString('utf8'));
    if ('deleted' in record) return undefined;
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(record.iv, 'base64'));
    decipher.setAAD(associatedData(id));
    decipher.setAuthTag(Buffer.from(record.tag, 'base64'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(record.data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw new WebhookSecretRecordError(
        id,
        "the record does not open with this INTAKE_KEY (the worker's and the intake's INTAKE_KEY must be the same) or it was changed",
      );
    }
  }

  /** Deletes the record, or overwrites it with a tombstone when the store cannot delete (idempotent). */
  async delete(id: string): Promise<void> {
    const key = recordKey(id);
    if (this.#store.delete) return this.#store.delete(key);
    if ((await this.#store.stat(key)) === undefined) return;
    const tombstone: Tombstone = { v: RECORD_VERSION, deleted: true };
    await this.#store.put(key, JSON.stringify(tombstone), 'application/json');
  }

  /** Never the key. */
  toJSON(): Record<string, unknown> {
    return { prefix: WEBHOOK_SECRET_PREFIX, encrypted: 'A256GCM' };
  }

  [inspect.custom](): string {
    return `EncryptedWebhookSecretStore(${WEBHOOK_SECRET_PREFIX}/)`;
  }
}

/** The store key of an id; an id that is not a plain token is hashed so it can never name another key. */
function recordKey(id: string): string {
  return `${WEBHOOK_SECRET_PREFIX}/${safeName(id)}.json`;
}

function safeName(id: string): string {
  return /^[A-Za-z0-9_-]{1,200}$/.test(id) ? id : `sha256-${createHash('sha256').update(id).digest('hex')}`;
}

function associatedData(id: string): Buffer {
  return Buffer.from(`webhook-secret:${id}`, 'utf8');
}

function parseRecord(id: string, text: string): SealedRecord | Tombstone {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WebhookSecretRecordError(id, 'the record is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null) throw new WebhookSecretRecordError(id, 'the record is not an object');
  const record = parsed as Record<string, unknown>;
  if (record.v !== RECORD_VERSION) throw new WebhookSecretRecordError(id, `the record has version ${JSON.stringify(record.v)}; this version reads 1`);
  if (record.deleted === true) return { v: RECORD_VERSION, deleted: true };
  for (const field of ['iv', 'tag', 'data'] as const) {
    if (typeof record[field] !== 'string') throw new WebhookSecretRecordError(id, `the record's ${field} must be base64 text`);
  }
  if (record.alg !== 'A256GCM') throw new WebhookSecretRecordError(id, 'the record\'s alg must be "A256GCM"');
  return record as unknown as SealedRecord;
}

/**
 * Reads secrets kept under WEBHOOK_SECRET_DIR by an earlier version as well, so webhooks of tasks started
 * before an upgrade still verify: new secrets go to `primary` only, reads try `primary` then the directory,
 * and deletes clear both. For one release; WEBHOOK_SECRET_DIR can go once those tasks have ended.
 */
export class LegacyDirWebhookSecretStore implements WebhookSecretStore {
  constructor(
    readonly primary: WebhookSecretStore,
    readonly legacy: FileWebhookSecretStore,
  ) {}

  async put(id: string, secret: string): Promise<void> {
    await this.primary.put(id, secret);
  }

  async get(id: string): Promise<string | undefined> {
    return (await this.primary.get(id)) ?? (await this.legacy.get(id));
  }

  async delete(id: string): Promise<void> {
    await this.primary.delete(id);
    await this.legacy.delete(id);
  }
}

/** The message both the worker and the intake log when WEBHOOK_SECRET_DIR is still set. */
export const WEBHOOK_SECRET_DIR_DEPRECATION =
  'WEBHOOK_SECRET_DIR is deprecated: webhook secrets are now kept encrypted (with INTAKE_KEY) in the artifact store; the directory is only read, for tasks started before the upgrade. Unset it once those have ended; it is ignored from the next release.';

/**
 * The webhook secret store of a worker or an intake: encrypted records in the artifact store, plus the
 * old directory (read only) while WEBHOOK_SECRET_DIR is set. Without INTAKE_KEY no webhook is ever asked
 * for, so no secret arrives: secrets are then kept in memory only.
 */
export function openWebhookSecretStore(options: { store: SecretRecordStore; intakeKey?: string; legacyDir?: string }): WebhookSecretStore {
  const primary = options.intakeKey ? new EncryptedWebhookSecretStore(options.store, options.intakeKey) : new InMemoryWebhookSecretStore();
  return options.legacyDir ? new LegacyDirWebhookSecretStore(primary, new FileWebhookSecretStore(options.legacyDir)) : primary;
}
