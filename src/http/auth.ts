import type { FastifyRequest } from 'fastify';
import type { Caller } from '../directory/directory.js';
import type { KeyStore } from '../keys/keys.port.js';
import { displayPrefix, hashesMatch, hashKey, presentedKey } from '../keys/token.js';
import { AppError } from '../shared/errors.js';
import { KEY_IN_URL, keyInQuery } from './key-in-url.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** SHA-256 (base64) of the key the request presents, once computed; null: none well-formed. */
    keyHash: string | null | undefined;
  }
}

/** A well-formed key as an `Authorization` header presents it, with its SHA-256. */
interface Presented {
  key: string;
  hash: Buffer;
  /** `hash` in base64: how the failure throttle tells keys apart. */
  hashBase64: string;
}

/**
 * Headers seen recently, with what they present (null: no well-formed key), so a busy key's
 * shape check and SHA-256 run once, not on every request (bench/RESULTS.md, "P1 in instructions"). The
 * hash is of the header's bytes alone: remembering it changes no answer, and the stored row is
 * still read (and compared in constant time) on every request. Bounded: emptied when full.
 */
const presented = new Map<string, Presented | null>();
const PRESENTED_REMEMBERED = 10_000;

function presentedBy(header: string | undefined): Presented | null {
  if (header === undefined) return null;
  let p = presented.get(header);
  if (p === undefined) {
    const key = presentedKey(header);
    if (key === null) p = null;
    else {
      const hash = hashKey(key);
      p = { key, hash, hashBase64: hash.toString('base64') };
    }
    if (presented.size >= PRESENTED_REMEMBERED) presented.clear();
    presented.set(header, p);
  }
  return p;
}

/** The presented key's hash (base64), or null when the request presents no well-formed key. */
export function keyHashOf(request: FastifyRequest): string | null {
  request.keyHash ??= presentedBy(request.headers.authorization)?.hashBase64 ?? null;
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
  const p = presentedBy(header);
  if (p === null) {
    throw new AppError('unauthorized', 'The Authorization header does not hold a valid API key.');
  }
  request.keyHash = p.hashBase64;
  let found = null;
  for (const candidate of await keys.findByDisplay(displayPrefix(p.key))) {
    if (hashesMatch(p.hash, candidate.hash)) found = candidate;
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
