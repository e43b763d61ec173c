/**
 * Per-key rate limiting, fixed window. Counters live behind `RateLimiter` so several instances
 * can share them (PostgreSQL or Redis) without touching the routes; the in-memory limiter serves
 * a single instance (the embedded store).
 */
export interface RateLimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  windowSeconds: number;
}

export interface RateLimiter {
  consume(key: string): Promise<RateLimitState>;
  /** Hands over what is still counted only here (shared counters); the app calls it as it closes. */
  close(): Promise<void>;
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly counts = new Map<string, number>();
  private windowStart = 0;

  constructor(
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  async consume(key: string): Promise<RateLimitState> {
    const now = this.now();
    const start = windowStart(now, this.windowSeconds);
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.counts.clear();
    }
    const used = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, used);
    return stateAfter(used, this.limit, this.windowSeconds, start, now);
  }

  async close(): Promise<void> {}
}

/** Start (ms) of the fixed window `now` falls in. */
export function windowStart(now: number, windowSeconds: number): number {
  return now - (now % (windowSeconds * 1000));
}

/** The state once `used` requests have been counted in the window starting at `start`. */
export function stateAfter(
  used: number,
  limit: number,
  windowSeconds: number,
  start: number,
  now: number,
): RateLimitState {
  return {
    allowed: used <= limit,
    limit,
    remaining: Math.max(0, limit - used),
    resetSeconds: Math.max(1, Math.ceil((start + windowSeconds * 1000 - now) / 1000)),
    windowSeconds,
  };
}
