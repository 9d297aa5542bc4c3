import type { Clock, TimerHandle } from '../clock';

/** A due-time callback key: `kind` is interpreted by the owner, `generation` guards against stale events. */
export interface ScheduledEvent {
  at: number;
  taskId: string;
  generation: number;
  kind: string;
}

interface Entry extends ScheduledEvent {
  order: number;
}

/**
 * A discrete-event scheduler over the emulator clock. Events sit in one min-heap behind a single clock
 * timer, so 10,000 tasks in flight cost 10,000 small heap entries rather than 10,000 timers; and
 * `runDue(now)` lets every request first catch up on what is due, so reads never lag a late timer.
 * Events run in time order and each receives its own due time, so a cascade (a task completes, the next
 * queued one starts) happens at the instant it would have, not when someone looked.
 */
export class EventScheduler {
  readonly #clock: Clock;
  readonly #onEvent: (event: ScheduledEvent) => void;
  readonly #heap: Entry[] = [];
  #order = 0;
  #timer?: { handle: TimerHandle; at: number };
  #running = false;
  #closed = false;

  constructor(clock: Clock, onEvent: (event: ScheduledEvent) => void) {
    this.#clock = clock;
    this.#onEvent = onEvent;
  }

  /** Adds an event; it runs once the clock reaches `event.at`. */
  schedule(event: ScheduledEvent): void {
    if (this.#closed) return;
    this.#push({ ...event, order: this.#order++ });
    this.#arm();
  }

  /** Runs every event due at or before `now`, in time order (events they schedule included). */
  runDue(now: number = this.#clock.now()): void {
    if (this.#running || this.#closed) return;
    this.#running = true;
    try {
      for (let head = this.#heap[0]; head !== undefined && head.at <= now; head = this.#heap[0]) {
        this.#pop();
        this.#onEvent(head);
      }
    } finally {
      this.#running = false;
    }
    this.#arm();
  }

  /** Number of pending events (stale ones included until they come due). */
  get size(): number {
    return this.#heap.length;
  }

  /** Cancels the timer and drops every pending event. */
  close(): void {
    this.#closed = true;
    this.#timer?.handle.cancel();
    this.#timer = undefined;
    this.#heap.length = 0;
  }

  #arm(): void {
    const head = this.#heap[0];
    if (this.#closed || this.#running || head === undefined) return;
    if (this.#timer && this.#timer.at <= head.at) return;
    this.#timer?.handle.cancel();
    const at = head.at;
    const handle = this.#clock.setTimeout(
      () => {
        if (this.#timer?.handle === handle) this.#timer = undefined;
        this.runDue(Math.max(at, this.#clock.now()));
      },
      Math.max(0, at - this.#clock.now()),
    );
    this.#timer = { handle, at };
  }

  #push(entry: Entry): void {
    const heap = this.#heap;
    heap.push(entry);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!before(entry, heap[parent]!)) break;
      heap[index] = heap[parent]!;
      index = parent;
    }
    heap[index] = entry;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && before(heap[right]!, heap[left]!) ? right : left;
      if (!before(heap[child]!, last)) break;
      heap[index] = heap[child]!;
      index = child;
    }
    heap[index] = last;
  }
}

function before(a: Entry, b: Entry): boolean {
  return a.at < b.at || (a.at === b.at && a.order < b.order);
}
