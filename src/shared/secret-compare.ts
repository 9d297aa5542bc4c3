import { createHash, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a secret: a fixed length, so comparing digests shows nothing about the secret's length. */
export function secretDigest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * Whether `given` (a digest) equals one of `digests`, comparing against every one in constant time, so
 * neither a match nor its position shows in the timing.
 */
export function matchesAnyDigest(given: Buffer, digests: readonly Buffer[]): boolean {
  let found = false;
  for (const digest of digests) found = timingSafeEqual(given, digest) || found;
  return found;
}
