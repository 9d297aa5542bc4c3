import type { FastifyRequest } from 'fastify';
import { matchesAnyDigest, secretDigest } from '../shared/secret-compare';
import { IntakeError } from './errors';

/**
 * Checks `Authorization: Bearer <token>` against the configured tokens in constant time: both sides are
 * hashed to a fixed length first, and every configured token is compared, so neither the length nor the
 * position of a match shows in the timing.
 */
export function bearerAuthenticator(tokens: readonly string[]): (request: FastifyRequest) => Promise<void> {
  const digests = tokens.map(secretDigest);
  return async (request) => {
    if (digests.length === 0)
      throw new IntakeError(401, 'the app-event routes are disabled: the intake has no bearer tokens configured (INTAKE_TOKENS)', 'unauthorized');
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer ([\x21-\x7e]+)$/i.exec(header.trim()) : null;
    if (!match) throw new IntakeError(401, 'send Authorization: Bearer <token>', 'unauthorized');
    if (!matchesAnyDigest(secretDigest(match[1]!), digests)) throw new IntakeError(401, 'the bearer token is not valid', 'unauthorized');
  };
}
