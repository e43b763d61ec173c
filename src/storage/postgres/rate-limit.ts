import type { Sql } from 'postgres';
import { windowStart } from '../../rate-limit/fixed-window.js';
import type { CounterTotal, SharedCounters } from '../../rate-limit/shared-counters.js';

/** How often (in additions) windows older than the previous one are deleted. */
const PRUNE_EVERY = 1000;

/**
 * The rate-limit counters every instance on the database shares: one `rate_limits` row per key
 * and window, added to by one upsert per call (many keys at once), which answers the totals.
 * `SharedRateLimiter` (domain/shared-rate-limit.ts) decides how often that call is made.
 */
export class PostgresRateCounters implements SharedCounters {
  private additions = 0;

  constructor(
    private readonly sql: Sql,
    private readonly windowSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  async add(keys: string[], starts: number[], counts: number[]): Promise<CounterTotal[]> {
    const rows = await this.sql<{ bucket: string; window_start: string; count: number }[]>`
      INSERT INTO rate_limits (bucket, window_start, count)
      SELECT * FROM unnest(${keys}::text[], ${starts}::bigint[], ${counts}::integer[])
      ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limits.count + excluded.count
      RETURNING bucket, window_start, count`;
    if (++this.additions % PRUNE_EVERY === 0) {
      const oldest = windowStart(this.now(), this.windowSeconds) - this.windowSeconds * 1000;
      await this.sql`DELETE FROM rate_limits WHERE window_start < ${oldest}`;
    }
    return rows.map((r) => ({ key: r.bucket, start: Number(r.window_start), count: r.count }));
  }
}
