import type { FastifyRequest } from 'fastify';
import { displayPrefix, hashesMatch, hashKey, presentedKey } from '../domain/api-key.js';
import type { Caller } from '../domain/directory.js';
import { AppError } from '../domain/errors.js';
import type { KeyStore } from '../domain/store.js';
import { KEY_IN_URL, keyInQuery } from './key-in-url.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** SHA-256 (base64) of the key the request presents, once computed; null: none well-formed. */
    keyHash: string | null | undefined;
  }
}

/** The presented key's hash, computed at most once a request (authentication and the throttle share it). */
export function keyHashOf(request: FastifyRequest): string | null {
  if (request.keyHash === undefined) {
    const key = presentedKey(request.headers.authorization);
    request.keyHash = key === null ? null : hashKey(key).toString('base64');
  }
  return request.keyHash;
}

/**
 * Resolves the caller from `Authorization: <key>` or `Authorization: Bearer <key>` (C2).
 * Malformed keys are refused before the store is asked; the stored hash is compared in
 * constant time. Keys in the query string are refused outright: URLs end up in logs (keys in the
 * path are refused earlier, on every route: src/http/key-in-url.ts).
 */
export async function authenticate(request: FastifyRequest, keys: KeyStore, now: number): Promise<Caller> {
  if (keyInQuery(request.query)) {
    throw new AppError('unauthorized', KEY_IN_URL);
  }
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '') {
    throw new AppError('unauthorized', 'Missing API key: send "Authorization: Bearer <key>".');
  }
  const presented = presentedKey(header);
  if (presented === null) {
    throw new AppError('unauthorized', 'The Authorization header does not hold a valid API key.');
  }
  const hash = hashKey(presented);
  request.keyHash = hash.toString('base64');
  let found = null;
  for (const candidate of await keys.findByDisplay(displayPrefix(presented))) {
    if (hashesMatch(hash, candidate.hash)) found = candidate;
  }
  if (found === null) throw new AppError('unauthorized', 'Unknown API key.');
  if (found.revokedAt !== null) throw new AppError('unauthorized', 'This API key has been revoked.');
  if (found.expiresAt !== null && found.expiresAt <= now)
    throw new AppError('unauthorized', 'This API key has expired.');
  return {
    keyId: found.id,
    memberId: found.memberId,
    teamId: found.teamId,
    role: found.role,
    keyCreatedAt: found.createdAt,
    legacyV1: found.legacyV1,
  };
}
