import { createHash, randomUUID } from 'node:crypto';
import { writeFile as writeFileThen } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat as statFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { contentTypeOf } from './filenames';
import type { ArtifactRef } from '../domain/artifacts';

/** What `put` accepts: bytes, text (written as UTF-8) or a stream of chunks. */
export type ArtifactData = Uint8Array | string | AsyncIterable<Uint8Array>;

/** Where reports and files go; workflow history keeps only the `ArtifactRef`s. */
export interface ArtifactStore {
  /** Writes `data` under `key`, replacing any previous content at once (readers never see half a file). */
  put(key: string, data: ArtifactData, contentType: string): Promise<ArtifactRef>;
  /** The bytes under `key`; rejects with `ArtifactNotFoundError` when there are none. */
  get(key: string): Promise<Uint8Array>;
  /** The reference of `key`, or undefined when nothing is stored there. */
  stat(key: string): Promise<ArtifactRef | undefined>;
  /** Every artifact under `prefix` (a folder-like key prefix), sorted by key. */
  list(prefix: string): Promise<ArtifactRef[]>;
  /**
   * The keys of every artifact under `prefix`, sorted, without reading or describing each one: what a
   * walk over a run's thousands of item records wants (`list` reads each artifact's size and hash).
   */
  keys(prefix: string): Promise<string[]>;
}

/** A key that is empty, absolute, has `.`/`..` or hidden segments, or would leave the store's root. */
export class ArtifactKeyError extends Error {
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`artifact key ${JSON.stringify(key)} ${reason}`);
    this.name = 'ArtifactKeyError';
  }
}

/** Reading a key that holds nothing; the message names the key and where it was looked for. */
export class ArtifactNotFoundError extends Error {
  constructor(
    readonly key: string,
    readonly uri: string,
  ) {
    super(`no artifact under key ${JSON.stringify(key)} (${uri})`);
    this.name = 'ArtifactNotFoundError';
  }
}

const META_DIR = '.meta';
/** Largest file a local store keeps no sidecar for when its content type is the one its name gives. */
const NO_SIDECAR_BYTES = 64 * 1024;
/** Folders a local store remembers as made (see `#inFolder`), or as holding no sidecars (see `#mayHoldSidecar`). */
const KNOWN_FOLDERS = 512;

/** Writes a new file whole and fsyncs it before closing (`flush`); the callback API skips the promise API's file handle. */
const writeNewFile = promisify(writeFileThen) as (file: string, data: Uint8Array, options: { flag: string; flush: boolean }) => Promise<void>;

interface Sidecar {
  contentType: string;
  sha256: string;
  bytes: number;
  /** The file the sidecar describes (its inode and modification time): a later put's file has another. */
  ino?: number;
  mtimeMs?: number;
}

/**
 * Artifacts as files under `rootDir`. Writes go to a temp file then `rename`, hashing while streaming.
 * Content type, size and hash are kept in a sidecar under `<root>/.meta/` (so `stat` need not re-read the
 * file); without one (a crash between the two renames) they are recomputed and the type comes from the
 * extension. Segments starting with `.` are refused, which keeps keys away from temp and sidecar files.
 */
export class LocalArtifactStore implements ArtifactStore {
  readonly rootDir: string;
  /** Folders this store made or found: a put into one skips `mkdir` (it makes the folder again if it vanished). */
  readonly #folders = new Set<string>();
  /** Sidecar folders found missing: a small put into one has no older sidecar to remove. */
  readonly #noSidecars = new Set<string>();

  constructor(rootDir: string) {
    this.rootDir = path.resolve(rootDir);
  }

  /** Writes atomically and returns the reference. */
  async put(key: string, data: ArtifactData, contentType: string): Promise<ArtifactRef> {
    const file = this.#fileOf(key);
    const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomUUID()}.tmp`);
    if (typeof data === 'string' || data instanceof Uint8Array) {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      if (bytes.byteLength <= NO_SIDECAR_BYTES && contentType === contentTypeOf(key)) return this.#putSmall(key, file, temp, bytes, contentType);
    }
    const hash = createHash('sha256');
    let bytes = 0;
    let written: { ino: number; mtimeMs: number } | undefined;
    const handle = await this.#inFolder(temp, () => open(temp, 'wx'));
    try {
      for await (const chunk of chunksOf(data)) {
        hash.update(chunk);
        bytes += chunk.byteLength;
        await handle.write(chunk);
      }
      await handle.sync();
      written = await handle.stat();
    } catch (error) {
      await handle.close().catch(() => undefined);
      await rm(temp, { force: true });
      throw error;
    }
    await handle.close();
    await rename(temp, file);
    // Concurrent puts of one key may rename their files and write their sidecars in different orders: the
    // sidecar names the file it describes (a rename keeps the inode), so stat never pairs one put's hash
    // with another's bytes.
    const sidecar: Sidecar = { contentType, sha256: hash.digest('hex'), bytes, ...(written ? { ino: written.ino, mtimeMs: written.mtimeMs } : {}) };
    if (bytes <= NO_SIDECAR_BYTES && contentType === contentTypeOf(key)) {
      // A small file whose type its name says needs no sidecar: stat reads and hashes it instead, which
      // costs about what reading a sidecar does, and each put (one per item record or result) saves a
      // second file. A sidecar an earlier put left is removed (it no longer describes the file).
      await unlink(this.#sidecarOf(key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      return this.#refOf(key, file, sidecar);
    }
    await this.#writeSidecar(key, sidecar);
    return this.#refOf(key, file, sidecar);
  }

  /**
   * A put whose bytes are at hand and need no sidecar (each item's result and record, each attempt
   * marker): hashed up front, written and fsynced in one call, renamed into place. The file's inode is
   * only wanted by a sidecar, so it is not read; an older sidecar is removed only where one may be.
   */
  async #putSmall(key: string, file: string, temp: string, data: Uint8Array, contentType: string): Promise<ArtifactRef> {
    const sha256 = createHash('sha256').update(data).digest('hex');
    try {
      await this.#inFolder(temp, () => writeNewFile(temp, data, { flag: 'wx', flush: true }));
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    await rename(temp, file);
    if (await this.#mayHoldSidecar(key)) {
      await unlink(this.#sidecarOf(key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    }
    return this.#refOf(key, file, { contentType, sha256, bytes: data.byteLength });
  }

  /**
   * Whether `key`'s sidecar folder may hold a sidecar: false once it was found missing (and this store
   * wrote none there since). Another process may make the folder later; a sidecar it writes for the same
   * key names its own file (inode and mtime), which `stat` then does not trust for this one.
   */
  async #mayHoldSidecar(key: string): Promise<boolean> {
    const folder = path.dirname(this.#sidecarOf(key));
    if (this.#noSidecars.has(folder)) return false;
    const found = await statFile(folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      throw error;
    });
    if (found) return true;
    if (this.#noSidecars.size >= KNOWN_FOLDERS) this.#noSidecars.clear();
    this.#noSidecars.add(folder);
    return false;
  }

  /** Reads the whole artifact; rejects with `ArtifactNotFoundError` when there is none. */
  async get(key: string): Promise<Uint8Array> {
    const file = this.#fileOf(key);
    try {
      return new Uint8Array(await readFile(file));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EISDIR') throw new ArtifactNotFoundError(key, pathToFileURL(file).href);
      throw error;
    }
  }

  /** The reference, or undefined when the key holds nothing. */
  async stat(key: string): Promise<ArtifactRef | undefined> {
    const file = this.#fileOf(key);
    const info = await statFile(file).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const sidecar = await this.#readSidecar(key);
    const sameFile = sidecar?.ino === undefined || (sidecar.ino === info.ino && sidecar.mtimeMs === info.mtimeMs);
    if (sidecar && sidecar.bytes === info.size && sameFile) return this.#refOf(key, file, sidecar);
    const data = await readFile(file);
    // A sidecar naming another file (a later put's, which wrote none) says nothing of this one's type either.
    return this.#refOf(key, file, {
      contentType: (sameFile ? sidecar?.contentType : undefined) ?? contentTypeOf(key),
      sha256: createHash('sha256').update(data).digest('hex'),
      bytes: data.byteLength,
    });
  }

  /** Every artifact under `prefix`, skipping temp and sidecar files. */
  async list(prefix: string): Promise<ArtifactRef[]> {
    const refs = await Promise.all((await this.keys(prefix)).map((key) => this.stat(key)));
    return refs.filter((ref): ref is ArtifactRef => ref !== undefined);
  }

  /** The keys under `prefix`, sorted, from the folders alone (temp and sidecar files skipped). */
  async keys(prefix: string): Promise<string[]> {
    const trimmed = prefix.replace(/\/+$/, '');
    const start = trimmed ? this.#fileOf(trimmed) : this.rootDir;
    const keys: string[] = [];
    await this.#walk(start, trimmed, keys);
    return keys.sort();
  }

  async #walk(dir: string, keyPrefix: string, keys: string[]): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const key = keyPrefix ? `${keyPrefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await this.#walk(path.join(dir, entry.name), key, keys);
      else if (entry.isFile()) keys.push(key);
    }
  }

  #fileOf(key: string): string {
    return path.join(this.rootDir, ...checkKey(key));
  }

  #sidecarOf(key: string): string {
    return path.join(this.rootDir, META_DIR, ...checkKey(key)) + '.json';
  }

  async #writeSidecar(key: string, sidecar: Sidecar): Promise<void> {
    const file = this.#sidecarOf(key);
    const temp = `${file}.${randomUUID()}.tmp`;
    this.#noSidecars.delete(path.dirname(file));
    await this.#inFolder(temp, () => writeFile(temp, JSON.stringify(sidecar)));
    await rename(temp, file);
  }

  /** Runs `create` (which makes `file`), making its folder first unless this store knows it exists; again after making it if it vanished. */
  async #inFolder<T>(file: string, create: () => Promise<T>): Promise<T> {
    const folder = path.dirname(file);
    if (this.#folders.has(folder)) {
      try {
        return await create();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        this.#folders.delete(folder);
      }
    }
    await mkdir(folder, { recursive: true });
    const made = await create();
    // Bounded: a run makes a folder per item for attempt markers; forgetting costs one mkdir.
    if (this.#folders.size >= KNOWN_FOLDERS) this.#folders.clear();
    this.#folders.add(folder);
    return made;
  }

  async #readSidecar(key: string): Promise<Sidecar | undefined> {
    try {
      const parsed: unknown = JSON.parse(await readFile(this.#sidecarOf(key), 'utf8'));
      return isSidecar(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  #refOf(key: string, file: string, sidecar: Sidecar): ArtifactRef {
    return { key, uri: pathToFileURL(file).href, bytes: sidecar.bytes, sha256: sidecar.sha256, contentType: sidecar.contentType };
  }
}

/** Splits a key into safe path segments, or throws `ArtifactKeyError`. */
export function checkKey(key: string): string[] {
  if (typeof key !== 'string' || key.length === 0) throw new ArtifactKeyError(String(key), 'is empty');
  if (key.length > 1024) throw new ArtifactKeyError(key.slice(0, 40), 'is longer than 1024 characters');
  if (key.startsWith('/') || /^[a-zA-Z]:/.test(key)) throw new ArtifactKeyError(key, 'must be relative, not absolute');
  if (/[\\\0]/.test(key)) throw new ArtifactKeyError(key, 'must not contain backslashes or NUL');
  const segments = key.split('/');
  for (const segment of segments) {
    if (segment === '') throw new ArtifactKeyError(key, 'must not have empty segments');
    if (segment === '..' || segment === '.') throw new ArtifactKeyError(key, 'must not contain "." or ".." segments');
    if (segment.startsWith('.')) throw new ArtifactKeyError(key, 'must not have segments starting with "."');
  }
  return segments;
}

async function* chunksOf(data: ArtifactData): AsyncIterable<Uint8Array> {
  if (typeof data === 'string') yield Buffer.from(data, 'utf8');
  else if (data instanceof Uint8Array) yield data;
  else yield* data;
}

function isSidecar(value: unknown): value is Sidecar {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.contentType === 'string' && typeof record.sha256 === 'string' && typeof record.bytes === 'number';
}
