import type { FastifyReply } from 'fastify';
import type { Caller } from '../directory/directory.js';
import type { RateLimiter, RateLimitState } from '../rate-limit/fixed-window.js';
import { AppError } from '../shared/errors.js';
import { setRateLimitHeaders } from './rate-limit.js';

/**
 * Counts the call against the key's quota and sends the RateLimit fields (C5: on every answer to
 * an authenticated caller). Returns the check that refuses it with 429 when over, so v1 can let
 * its retirement answers (410, 403) go first: those are never turned into a 429 (C7).
 */
export async function countAgainstQuota(
  reply: FastifyReply,
  rateLimiter: RateLimiter,
  caller: Caller,
): Promise<() => void> {
  const limit = await consumeQuota(reply, rateLimiter, caller);
  return () => refuseOverQuota(reply, limit);
}

/** `countAgainstQuota` without the check made for later: the state, for `refuseOverQuota`. */
export async function consumeQuota(
  reply: FastifyReply,
  rateLimiter: RateLimiter,
  caller: Caller,
): Promise<RateLimitState> {
  const limit = await rateLimiter.consume(quotaKey(caller.keyId));
  setRateLimitHeaders(reply, limit);
  return limit;
}

/** Refuses the call with 429 when its count was over the quota. */
export function refuseOverQuota(reply: FastifyReply, limit: RateLimitState): void {
  if (limit.allowed) return;
  reply.header('retry-after', String(limit.resetSeconds));
  throw new AppError(
    'rate-limited',
    `Rate limit of ${limit.limit} requests per ${limit.windowSeconds} s exceeded.`,
  );
}

/**
 * The counter's name of a key (`key:<id>`), made once per key rather than per call: a string
 * made afresh is hashed again by every map it is looked up in. Bounded: emptied when full.
 */
const quotaKeys = new Map<number, string>();
const QUOTA_KEYS_REMEMBERED = 10_000;

function quotaKey(keyId: number): string {
  let name = quotaKeys.get(keyId);
  if (name === undefined) {
    name = `key:${keyId}`;
    if (quotaKeys.size >= QUOTA_KEYS_REMEMBERED) quotaKeys.clear();
    quotaKeys.set(keyId, name);
  }
  return name;
}
