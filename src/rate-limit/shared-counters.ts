import {
  MemoryRateLimiter,
  type RateLimiter,
  type RateLimitState,
  stateAfter,
  windowStart,
} from './fixed-window.js';

/** A key's total in one window, as the shared counters answer it after an addition. */
export interface CounterTotal {
  key: string;
  /** Start (ms) of the window. */
  start: number;
  count: number;
}

/**
 * Where the instances' counters meet (PostgreSQL's `rate_limits` table, Redis): adds each count
 * to its key's counter of its window in one round trip and answers the totals.
 */
export interface SharedCounters {
  add(keys: string[], starts: number[], counts: number[]): Promise<CounterTotal[]>;
}

/** A key's count in the current window on this instance. */
interface Counter {
  start: number;
  /** What the shared counters said every instance had counted, at this instance's last exchange. */
  shared: number;
  /** Counted here since, not yet added to the shared counters. */
  pending: number;
  /** When `shared` was learnt. */
  syncedAt: number;
}

/**
 * Fixed-window counters shared by every instance, in the store or in Redis (`SharedCounters`).
 *
 * With `syncMs` 0, exact: one addition per request, answering the count so far. Otherwise
 * (`LEADLINE_RATE_SYNC_MS`, 250 by default) a key's first request in a window on this instance
 * makes that addition — so it starts from what the other instances counted — and later ones
 * count in memory; every `syncMs` the counts made here are added in one round trip, which
 * answers the totals. A busy key's requests cost no round trip of their own; a key that pauses
 * for two periods pays one again on its next request, to start from fresh totals. Across
 * instances the limit is approximate: each may admit what it counts within one sync period
 * before hearing of the others' (docs/scaling.md); on one instance it is exact.
 */
export class SharedRateLimiter implements RateLimiter {
  private readonly counters = new Map<string, Counter>();
  private timer: NodeJS.Timeout | null = null;
  private syncing: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly shared: SharedCounters,
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly syncMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async consume(key: string): Promise<RateLimitState> {
    const now = this.now();
    const start = windowStart(now, this.windowSeconds);
    const state = (used: number) => stateAfter(used, this.limit, this.windowSeconds, start, now);
    if (this.syncMs === 0) return state(await this.addOne(key, start, 1));
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
    const count = await this.addOne(key, start, pending + 1);
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

  /**
   * Adds what was counted here to the shared counters and learns the totals. A failure leaves
   * the counts pending for the next period; it is also thrown, for the caller that waits on it.
   */
  async sync(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
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
      const totals = await this.shared.add(
        batch.map(([k]) => k),
        batch.map(([, c]) => c.start),
        batch.map(([, , n]) => n),
      );
      const at = this.now();
      for (const total of totals) {
        const c = this.counters.get(total.key);
        if (c !== undefined && c.start === total.start) {
          c.shared = Math.max(c.shared, total.count);
          c.syncedAt = at;
        }
      }
    } catch (err) {
      for (const [, c, taken] of batch) c.pending += taken; // not counted there: try again later
      this.schedule();
      throw err;
    }
  }

  /**
   * Stops the background sync and adds what is still pending, once, so an instance shutting
   * down hands over its counts; a failure then is dropped (the limit is approximate anyway).
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.syncing;
    await this.sync().catch(() => {});
  }

  private schedule(): void {
    if (this.timer !== null || this.closed) return;
    this.timer = setTimeout(() => {
      this.syncing = this.sync()
        .catch(() => {}) // pending again, rescheduled by sync()
        .finally(() => {
          this.syncing = null;
        });
    }, this.syncMs);
    this.timer.unref(); // close() hands the counts over; a process that dies drops them, as said
  }

  private async addOne(key: string, start: number, count: number): Promise<number> {
    const [total] = await this.shared.add([key], [start], [count]);
    return total?.count ?? count;
  }
}

/**
 * The limiter for a store's counters: shared (exactly with `syncMs` 0, else in the background
 * every `syncMs`) where the store gives counters, in this process's memory where it gives none.
 */
export function rateLimiterFor(
  counters: SharedCounters | null,
  limit: number,
  windowSeconds: number,
  syncMs: number,
): RateLimiter {
  return counters === null
    ? new MemoryRateLimiter(limit, windowSeconds)
    : new SharedRateLimiter(counters, limit, windowSeconds, syncMs);
}
