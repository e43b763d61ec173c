import type { Sql } from 'postgres';
import { type RateLimiter, type RateLimitState, stateAfter, windowStart } from '../../domain/rate-limit.js';

/** How often (in counted requests) windows older than the previous one are deleted. */
const PRUNE_EVERY = 1000;

/**
 * Fixed-window counters in PostgreSQL, shared by every instance: one upsert per request,
 * returning the count so far. Stale windows are pruned now and then.
 */
export class PostgresRateLimiter implements RateLimiter {
  private calls = 0;

  constructor(
    private readonly sql: Sql,
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  async consume(key: string): Promise<RateLimitState> {
    const now = this.now();
    const start = windowStart(now, this.windowSeconds);
    const [row] = await this.sql<{ count: number }[]>`INSERT INTO rate_limits (bucket, window_start, count)
      VALUES (${key}, ${start}, 1)
      ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limits.count + 1
      RETURNING count`;
    if (++this.calls % PRUNE_EVERY === 0) {
      await this.sql`DELETE FROM rate_limits WHERE window_start < ${start - this.windowSeconds * 1000}`;
    }
    return stateAfter(row?.count ?? 1, this.limit, this.windowSeconds, start, now);
  }
}
