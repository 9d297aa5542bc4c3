import { randomInt } from 'node:crypto';
import type { Random } from './types';

/** A seed: a 32-bit integer, or any string (hashed to one). */
export type Seed = number | string;

/** A fresh, unpredictable seed for runs that did not ask for repeatability. */
export function randomSeed(): number {
  return randomInt(0, 2 ** 32);
}

/** FNV-1a hash of a string to an unsigned 32-bit integer: turns string seeds and URLs into seeds. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * A seeded `Random` (mulberry32): small, fast and good enough for ids and fault dice; the same seed
 * and the same sequence of calls give the same values, which is what repeatable runs need.
 */
export function createRandom(seed: Seed): Random {
  let state = (typeof seed === 'string' ? hashString(seed) : seed) >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => p > 0 && next() < p,
    hex: (length) => Array.from({ length }, () => Math.floor(next() * 16).toString(16)).join(''),
  };
}

/** A version-4-shaped UUID drawn from `random`, for ids the service writes as UUIDs (`batch_<uuid>`). */
export function randomUuid(random: Random): string {
  const hex = random.hex(32);
  const variant = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Picks one element of a non-empty list. */
export function pick<T>(random: Random, items: readonly [T, ...T[]]): T {
  return items[random.int(0, items.length - 1)] ?? items[0];
}
