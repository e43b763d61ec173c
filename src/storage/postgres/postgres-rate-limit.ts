import type { Sql } from 'postgres';
import { type RateLimiter, type RateLimitState, stateAfter, windowStart } from '../../domain/rate-limit.js';

/** How often (in store writes) windows older than the previous one are deleted. */
const PRUNE_EVERY = 1000;

/** A key's count in the current window on this instance. */
interface Counter {
  start: number;
  /** What the store said every instance had counted, at this instance's last exchange with it. */
  shared: number;
  /** Counted here since, not yet added to the store. */
  pending: number;
  /** When `shared` was learnt. */
  syncedAt: number;
}

/**
 * Fixed-window counters in PostgreSQL, shared by every instance.
 *
 * With `syncMs` 0 (the default), exact: one committed upsert per request, returning the count so far.
 * Otherwise (LEADLINE_RATE_SYNC_MS) a key’s first request in a window on this instance makes
 * that upsert — so it starts from what the other instances counted — and later ones count in
 * memory; every `syncMs` the counts made here are added to the store in one statement, which
 * answers the totals. A busy key's requests cost no round trip of their own; a key that pauses
 * for two periods pays one again on its next request, to start from fresh totals. Across instances the limit is
 * approximate: each may admit what it counts within one sync period before hearing of the
 * others' (docs/scaling.md); on one instance it is exact.
 */
export class PostgresRateLimiter implements RateLimiter {
  private writes = 0;
  private readonly counters = new Map<string, Counter>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly sql: Sql,
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly syncMs = 0,
    private readonly now: () => number = Date.now,
  ) {}

  async consume(key: string): Promise<RateLimitState> {
    const now = this.now();
    const start = windowStart(now, this.windowSeconds);
    const state = (used: number) => stateAfter(used, this.limit, this.windowSeconds, start, now);
    if (this.syncMs === 0) return state(await this.add([key], [start], [1]).then((r) => r[0]?.count ?? 1));
    const counter = this.counters.get(key);
    // Counted in memory while the totals are fresh: the background sync keeps a busy key's so.
    if (counter !== undefined && counter.start === start && now - counter.syncedAt <= 2 * this.syncMs) {
      counter.pending++;
      this.schedule();
      return state(counter.shared + counter.pending);
    }
    // A key's first request in the window here, or the first after a pause: one round trip
    // learns what every instance counted (and adds what this one had pending).
    const pending = counter !== undefined && counter.start === start ? counter.pending : 0;
    const count = (await this.add([key], [start], [pending + 1]))[0]?.count ?? 1;
    const raced = this.counters.get(key);
    if (raced === undefined || raced.start !== start || raced === counter) {
      this.counters.set(key, {
        start,
        shared: count,
        pending: (raced?.pending ?? pending) - pending,
        syncedAt: now,
      });
    } else {
      raced.shared = Math.max(raced.shared, count); // another first request won the race
    }
    return state(count);
  }

  /** Adds what was counted here to the store; learns the totals. Errors leave it pending. */
  async sync(): Promise<void> {
    this.timer = null;
    const current = windowStart(this.now(), this.windowSeconds);
    const batch: [string, Counter, number][] = [];
    for (const [key, c] of this.counters) {
      if (c.start < current) this.counters.delete(key);
      else if (c.pending > 0) batch.push([key, c, c.pending]);
    }
    if (batch.length === 0) return;
    for (const [, c, taken] of batch) c.pending -= taken;
    try {
      const rows = await this.add(
        batch.map(([k]) => k),
        batch.map(([, c]) => c.start),
        batch.map(([, , n]) => n),
      );
      const at = this.now();
      for (const row of rows) {
        const c = this.counters.get(row.bucket);
        if (c !== undefined && c.start === Number(row.window_start)) {
          c.shared = Math.max(c.shared, row.count);
          c.syncedAt = at;
        }
      }
    } catch {
      for (const [, c, taken] of batch) c.pending += taken; // the store is away: try again later
      this.schedule();
    }
  }

  private schedule(): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(() => void this.sync(), this.syncMs);
    this.timer.unref(); // pending counts of a process that exits are dropped: approximate, as said
  }

  private async add(
    keys: string[],
    starts: number[],
    counts: number[],
  ): Promise<{ bucket: string; window_start: string; count: number }[]> {
    const rows = await this.sql<{ bucket: string; window_start: string; count: number }[]>`
      INSERT INTO rate_limits (bucket, window_start, count)
      SELECT * FROM unnest(${keys}::text[], ${starts}::bigint[], ${counts}::integer[])
      ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limits.count + excluded.count
      RETURNING bucket, window_start, count`;
    if (++this.writes % PRUNE_EVERY === 0) {
      const oldest = windowStart(this.now(), this.windowSeconds) - this.windowSeconds * 1000;
      await this.sql`DELETE FROM rate_limits WHERE window_start < ${oldest}`;
    }
    return rows;
  }
}
