import { createHash, randomUUID } from 'node:crypto';
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
