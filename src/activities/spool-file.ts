import { createReadStream, type ReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** Text held before it is appended to the file, in characters. */
const FLUSH_CHARS = 256 * 1024;

/**
 * A file of text written a little at a time and then read back as a stream of bytes: an output of any
 * size passes through with only a small chunk in memory. The caller chooses the path (a temporary
 * folder) and removes the file; `close` releases what is open, whatever happened.
 */
export class SpoolFile {
  readonly path: string;
  readonly #handle: FileHandle;
  #held: string[] = [];
  #heldChars = 0;
  #closed = false;
  #reader?: ReadStream;

  private constructor(path: string, handle: FileHandle) {
    this.path = path;
    this.#handle = handle;
  }

  /** A new, empty file at `path` (which must not exist). */
  static async create(path: string): Promise<SpoolFile> {
    return new SpoolFile(path, await open(path, 'wx'));
  }

  /** Appends `text` (UTF-8); written to the file once enough is held. */
  async write(text: string): Promise<void> {
    this.#held.push(text);
    this.#heldChars += text.length;
    if (this.#heldChars >= FLUSH_CHARS) await this.#flush();
  }

  /** Writes what is held, closes the file for writing and reads it back from its start, as chunks of bytes. */
  async contents(): Promise<AsyncIterable<Uint8Array>> {
    await this.#flush();
    this.#closed = true;
    await this.#handle.close();
    this.#reader = createReadStream(this.path);
    return this.#reader;
  }

  /** Closes the file and its reader, if still open. */
  async close(): Promise<void> {
    this.#reader?.destroy();
    if (!this.#closed) {
      this.#closed = true;
      await this.#handle.close().catch(() => undefined);
    }
  }

  async #flush(): Promise<void> {
    if (this.#held.length === 0) return;
    const chunk = this.#held.join('');
    this.#held = [];
    this.#heldChars = 0;
    // writeFile on a handle writes all of it from the current position.
    await this.#handle.writeFile(chunk, 'utf8');
  }
}
