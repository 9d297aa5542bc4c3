import { EventEmitter } from 'node:events';

/**
 * One call's time limit and the caller's signal, as the abort signal undici takes. undici accepts an
 * `EventEmitter` with `aborted`/`reason` as well as an `AbortSignal`; the emitter is used because an
 * `AbortSignal` per call (and `AbortSignal.any([AbortSignal.timeout(ms), signal])` even more) cost a
 * quarter of the client's throughput on Node 20. `clear` must run once the body is read or dropped.
 */
export class Deadline extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  readonly #timer: NodeJS.Timeout;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #onCallerAbort: (() => void) | undefined;

  constructor(timeoutMs: number, callerSignal?: AbortSignal) {
    super();
    this.#timer = setTimeout(() => this.#abort(new DOMException(`The operation timed out after ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
    this.#timer.unref();
    if (callerSignal) {
      this.#callerSignal = callerSignal;
      this.#onCallerAbort = () => this.#abort(callerSignal.reason);
      if (callerSignal.aborted) this.#onCallerAbort();
      else callerSignal.addEventListener('abort', this.#onCallerAbort, { once: true });
    }
  }

  /** Stops the time limit but keeps following the caller's signal (for a body that streams a long time). */
  readonly stopTimer = (): void => {
    clearTimeout(this.#timer);
  };

  /** Stops the timer and lets go of the caller's signal (a long-lived one would otherwise collect listeners). */
  readonly clear = (): void => {
    clearTimeout(this.#timer);
    if (this.#onCallerAbort) this.#callerSignal?.removeEventListener('abort', this.#onCallerAbort);
  };

  #abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.clear();
    this.emit('abort');
  }
}
