/**
 * Starts `start(item)` for up to `ahead` items of `source` before their turn and yields each item with
 * its result, in the source's order: the work's latency overlaps while the consumer still sees one item
 * at a time, and memory stays bounded. A result that rejects throws when its turn comes; one never
 * reached (the consumer stopped early) rejects unseen. Calls to `start` are made in order.
 */
export async function* readAhead<T, R>(source: Iterable<T> | AsyncIterable<T>, ahead: number, start: (item: T) => Promise<R>): AsyncGenerator<[T, R]> {
  const items: Iterator<T> | AsyncIterator<T> = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
  const started: Array<[T, Promise<R>]> = [];
  let more = true;
  const fill = async (): Promise<void> => {
    while (more && started.length < ahead) {
      const next = await items.next();
      if (next.done) {
        more = false;
        return;
      }
      const result = start(next.value);
      result.catch(() => undefined);
      started.push([next.value, result]);
    }
  };
  try {
    for (await fill(); started.length > 0; await fill()) {
      const [item, result] = started.shift()!;
      yield [item, await result];
    }
  } finally {
    await items.return?.();
  }
}
