import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../domain/directory.js';
import { AppError } from '../domain/errors.js';
import type { RateLimiter } from '../domain/rate-limit.js';
import type { KeyStore } from '../storage/store.js';
import { authenticate } from './auth.js';
import { rateLimitHeaders } from './rate-limit.js';

/**
 * What every API operation (v1 and v2) does first: know the caller from its key, then count
 * the request against the key's quota — one quota per key across both versions.
 */
export async function admitCaller(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: { keys: KeyStore; rateLimiter: RateLimiter; now: number },
): Promise<Caller> {
  const caller = await authenticate(request, deps.keys, deps.now);
  const limit = await deps.rateLimiter.consume(`key:${caller.keyId}`);
  reply.headers(rateLimitHeaders(limit));
  if (!limit.allowed) {
    reply.header('retry-after', String(limit.resetSeconds));
    throw new AppError(
      'rate-limited',
      `Rate limit of ${limit.limit} requests per ${limit.windowSeconds} s exceeded.`,
    );
  }
  return caller;
}
