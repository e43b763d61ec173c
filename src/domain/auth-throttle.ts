/**
 * Repeated authentication failures from one client address are throttled (issue 7, R7): after
 * `limit` failures within a window the address is refused until the window ends, whatever key
 * it sends — guessing keys gets slow, and a client stuck with a revoked key stops hammering the
 * store. Counted in this instance's memory: an attacker spread over N instances gets N × limit,
 * still a bound.
 */
export class AuthFailureThrottle {
  private readonly failures = new Map<string, { windowStart: number; count: number }>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Seconds until `address` may try again, or null when it is not throttled. */
  retryAfter(address: string, now: number): number | null {
    const f = this.failures.get(address);
    if (f === undefined || now - f.windowStart >= this.windowMs || f.count < this.limit) return null;
    return Math.max(1, Math.ceil((f.windowStart + this.windowMs - now) / 1000));
  }

  failed(address: string, now: number): void {
    const f = this.failures.get(address);
    if (f === undefined || now - f.windowStart >= this.windowMs) {
      if (this.failures.size >= 100_000) this.prune(now);
      this.failures.set(address, { windowStart: now, count: 1 });
    } else {
      f.count++;
    }
  }

  private prune(now: number): void {
    for (const [address, f] of this.failures)
      if (now - f.windowStart >= this.windowMs) this.failures.delete(address);
  }
}
