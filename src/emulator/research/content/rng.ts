/** A small deterministic generator (mulberry32), so generated content is the same on every read. */
export interface SeededRandom {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
}

/** A generator for `seed`; `salt` separates independent streams of one task. */
export function seededRandom(seed: number, salt = 0): SeededRandom {
  let state = (seed ^ Math.imul(salt + 1, 0x9e3779b9)) >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('cannot pick from an empty list');
      return items[Math.floor(next() * items.length)]!;
    },
  };
}
