/**
 * Signatures (with the workflow they went to) of deliveries already passed to a workflow, kept for as long as their timestamp is within
 * tolerance (after that the signature check refuses them anyway), so a replay or a duplicate delivery
 * inside that window is answered without signalling the workflow again. Bounded: the oldest go first.
 */
export class DeliveryMemory {
  readonly #seen = new Map<string, number>();

  constructor(private readonly toleranceMs: number, private readonly maxEntries = 100_000) {}

  /** True when this signature was delivered already and is still within tolerance. */
  has(signature: string, now: number): boolean {
    const expires = this.#seen.get(signature);
    return expires !== undefined && expires > now;
  }

  /** Remembers a delivered signature until its timestamp (seconds) leaves the tolerance window. */
  add(signature: string, timestampSeconds: number, now: number): void {
    this.#seen.set(signature, timestampSeconds * 1000 + this.toleranceMs);
    if (this.#seen.size > this.maxEntries) this.#prune(now);
  }

  #prune(now: number): void {
    for (const [signature, expires] of this.#seen) if (expires <= now) this.#seen.delete(signature);
    // Still full of live entries: drop the oldest inserted.
    for (const signature of this.#seen.keys()) {
      if (this.#seen.size <= this.maxEntries) break;
      this.#seen.delete(signature);
    }
  }
}
