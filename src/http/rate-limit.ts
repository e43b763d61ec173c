/**
 * Per-key rate limiting, fixed window. Advertised with the IETF RateLimit fields
 * (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=<quota>;w=<window s>`
 * and `RateLimit: "default";r=<remaining>;t=<seconds to reset>`, on every response to an
 * authenticated caller; `Retry-After` on 429. Hand-written because @fastify/rate-limit emits only
 * the older X-RateLimit-* / draft-06 fields. Counters live behind `RateLimiter` so several
 * instances can share them (PostgreSQL or Redis) without touching the routes.
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
    const windowMs = this.windowSeconds * 1000;
    const now = this.now();
    const start = now - (now % windowMs);
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.counts.clear();
    }
    const used = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, used);
    return {
      allowed: used <= this.limit,
      limit: this.limit,
      remaining: Math.max(0, this.limit - used),
      resetSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000)),
      windowSeconds: this.windowSeconds,
    };
  }
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'ratelimit-policy': `"default";q=${state.limit};w=${state.windowSeconds}`,
    ratelimit: `"default";r=${state.remaining};t=${state.resetSeconds}`,
  };
}
