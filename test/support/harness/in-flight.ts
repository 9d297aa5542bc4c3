import { HarnessStalledError } from './errors';

/**
 * Real-time work the harness must see finish before it moves the fake clock: activity attempts and
 * async clock callbacks. Errors are handed to `onError` (the tracked promise itself never rejects).
 */
export class InFlightWork {
  private readonly work = new Map<Promise<void>, string>();

  constructor(
    private readonly onError: (error: Error) => void,
    private readonly stallTimeoutMs: number,
  ) {}

  /** Number of pieces of work still running. */
  get size(): number {
    return this.work.size;
  }

  /** Starts tracking `work`, described for stall reports. */
  track(work: Promise<unknown>, description: string): void {
    const tracked: Promise<void> = work
      .then(
        () => undefined,
        (error: unknown) => this.onError(error instanceof Error ? error : new Error(String(error))),
      )
      .finally(() => this.work.delete(tracked));
    this.work.set(tracked, description);
  }

  /**
   * Resolves true when any tracked work finishes, or false once `realTimeMs` have passed first (the
   * caller then lets fake time flow, as a time-skipping server does while activities run). Rejects
   * with a HarnessStalledError naming the work when nothing finishes within the stall timeout.
   */
  async waitForAny(realTimeMs?: number): Promise<boolean> {
    const running = [...this.work.values()];
    const stalls = realTimeMs === undefined || realTimeMs >= this.stallTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve, reject) => {
      if (!stalls) {
        timer = setTimeout(() => resolve(false), Math.max(0, realTimeMs));
        return;
      }
      timer = setTimeout(() => {
        reject(
          new HarnessStalledError(
            `Still running after ${this.stallTimeoutMs} ms of real time: ${running.join('; ')}. No fake timer is ` +
              `due within that time, so nothing the harness controls can unblock it.`,
          ),
        );
      }, this.stallTimeoutMs);
    });
    try {
      return await Promise.race([...this.work.keys()].map((work) => work.then(() => true)).concat(timeout));
    } finally {
      clearTimeout(timer);
    }
  }
}
