import { Redis } from 'ioredis';
import { type RateLimiter, type RateLimitState, stateAfter, windowStart } from '../domain/rate-limit.js';

/**
 * Fixed-window counters in Redis (`REDIS_URL`), shared by every instance: INCR and a PEXPIRE
 * of two windows in one round trip, so stale counters clean themselves up.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly limit: number,
    private readonly windowSeconds: number,
    /** Namespace of the counters, so deployments sharing a Redis do not share limits. */
    private readonly prefix = 'leadline',
    private readonly now: () => number = Date.now,
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
  }

  async consume(key: string): Promise<RateLimitState> {
    const now = this.now();
    const start = windowStart(now, this.windowSeconds);
    const bucket = `${this.prefix}:rl:${key}:${start}`;
    const results = await this.redis
      .multi()
      .incr(bucket)
      .pexpire(bucket, this.windowSeconds * 2000)
      .exec();
    const used = Number(results?.[0]?.[1] ?? 1);
    return stateAfter(used, this.limit, this.windowSeconds, start, now);
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
