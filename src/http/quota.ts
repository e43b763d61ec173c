import type { FastifyReply } from 'fastify';
import type { Caller } from '../directory/directory.js';
import type { RateLimiter } from '../rate-limit/fixed-window.js';
import { AppError } from '../shared/errors.js';
import { rateLimitHeaders } from './rate-limit.js';

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
  const limit = await rateLimiter.consume(`key:${caller.keyId}`);
  reply.headers(rateLimitHeaders(limit));
  return () => {
    if (limit.allowed) return;
    reply.header('retry-after', String(limit.resetSeconds));
    throw new AppError(
      'rate-limited',
      `Rate limit of ${limit.limit} requests per ${limit.windowSeconds} s exceeded.`,
    );
  };
}
