import { createRandom } from '../../random';

/** A small deterministic generator, so generated content is the same on every read. */
export interface SeededRandom {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
}

/** A generator for `seed` (the emulator's mulberry32); `salt` separates independent streams of one task. */
export function seededRandom(seed: number, salt = 0): SeededRandom {
  const random = createRandom((seed ^ Math.imul(salt + 1, 0x9e3779b9)) >>> 0);
  return {
    next: random.next,
    int: random.int,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('cannot pick from an empty list');
      return items[Math.floor(random.next() * items.length)]!;
    },
  };
}
