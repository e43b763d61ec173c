import type { FastifyRequest } from 'fastify';
import { displayPrefix, hashesMatch, hashKey, isWellFormedKey, KEY_PREFIX } from '../domain/api-key.js';
import type { Caller } from '../domain/directory.js';
import { AppError } from '../domain/errors.js';
import type { KeyStore } from '../storage/store.js';

/** Query parameter names under which clients commonly (and wrongly) send keys. */
const KEY_PARAMS = new Set(['key', 'apikey', 'api_key', 'api-key', 'token', 'access_token', 'authorization']);

function keyInQuery(query: unknown): boolean {
  if (typeof query !== 'object' || query === null) return false;
  for (const [name, value] of Object.entries(query)) {
    if (KEY_PARAMS.has(name.toLowerCase()) || name.includes(KEY_PREFIX)) return true;
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && v.includes(KEY_PREFIX))) return true;
  }
  return false;
}

/**
 * Resolves the caller from `Authorization: <key>` or `Authorization: Bearer <key>` (C2).
 * Malformed keys are refused before the store is asked; the stored hash is compared in
 * constant time. Keys in the query string are refused outright: URLs end up in logs.
 */
export async function authenticate(request: FastifyRequest, keys: KeyStore, now: number): Promise<Caller> {
  if (keyInQuery(request.query)) {
    throw new AppError(
      'unauthorized',
      'API keys are accepted only in the Authorization header, never in the URL; treat a key sent in a URL as leaked and revoke it.',
    );
  }
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '') {
    throw new AppError('unauthorized', 'Missing API key: send "Authorization: Bearer <key>".');
  }
  const match = /^(?:bearer\s+)?(\S+)$/i.exec(header.trim());
  const presented = match?.[1];
  if (presented === undefined || !isWellFormedKey(presented)) {
    throw new AppError('unauthorized', 'The Authorization header does not hold a valid API key.');
  }
  const hash = hashKey(presented);
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
