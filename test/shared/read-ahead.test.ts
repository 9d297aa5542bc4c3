import { readAhead } from '../../src/shared/read-ahead';

const later = <T>(value: T, ms: number) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('readAhead', () => {
  test('yields in the source order with at most `ahead` started and unfinished at once', async () => {
    let running = 0;
    let most = 0;
    const seen: Array<[number, number]> = [];
    for await (const pair of readAhead([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 3, async (n) => {
      most = Math.max(most, ++running);
      // Later items finish first: the order still follows the source.
      const result = await later(n * 10, 20 - n);
      running -= 1;
      return result;
    }))
      seen.push(pair);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => [n, n * 10]));
    expect(most).toBe(3);
  });

  test('a failure throws at its turn; one never reached, or past an early stop, does not reject unseen', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const taken: number[] = [];
      await expect(
        (async () => {
          for await (const [n] of readAhead([1, 2, 3, 4], 4, (n) => (n === 2 || n === 4 ? Promise.reject(new Error(`item ${n}`)) : later(n, 1)))) taken.push(n);
        })(),
      ).rejects.toThrow('item 2');
      expect(taken).toEqual([1]);
      const early: number[] = [];
      for await (const [n] of readAhead(
        (async function* () {
          yield* [1, 2, 3];
        })(),
        2,
        (n) => (n === 3 ? Promise.reject(new Error('never reached')) : later(n, 1)),
      )) {
        early.push(n);
        break;
      }
      expect(early).toEqual([1]);
      await later(undefined, 20);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
