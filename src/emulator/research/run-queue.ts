/** A FIFO of ids with O(1) push and shift (an array with a moving head, compacted now and then). */
class Fifo {
  #items: string[] = [];
  #head = 0;

  push(id: string): void {
    this.#items.push(id);
  }

  shift(): string | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const id = this.#items[this.#head++];
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return id;
  }

  get length(): number {
    return this.#items.length - this.#head;
  }
}

/**
 * Tasks waiting for a running slot. Tasks resuming after a checkpoint answer go ahead of fresh ones:
 * they already held a slot and gave it up only to wait for a human. Entries are not removed on cancel;
 * the caller skips ids whose task is no longer `queued`.
 */
export class RunQueue {
  readonly #resumed = new Fifo();
  readonly #fresh = new Fifo();

  /** Queues a task that has not started yet. */
  pushFresh(id: string): void {
    this.#fresh.push(id);
  }

  /** Queues a task that resumes after a checkpoint answer. */
  pushResumed(id: string): void {
    this.#resumed.push(id);
  }

  /** The next id to try, or undefined when both queues are empty. */
  shift(): string | undefined {
    return this.#resumed.shift() ?? this.#fresh.shift();
  }

  /** Entries waiting (stale ones included). */
  get length(): number {
    return this.#resumed.length + this.#fresh.length;
  }
}
