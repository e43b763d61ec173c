/** How stale a known key's last-seen time may be before a success refreshes it. */
const KNOWN_REFRESH_MS = 1_000;

/**
 * Repeated authentication failures from one client address are throttled (docs/reliability.md R7,
 * R10): after `limit` failures within a window the address is throttled until the window ends.
 * Guessing keys gets slow, and a client stuck with a revoked key stops hammering the store.
 *
 * One address may be many clients (a NAT, or a load balancer whose `X-Forwarded-For` is not
 * trusted), so a throttled address is not refused wholesale:
 * - a key this instance has seen authenticate recently is let through: it goes on being served;
 * - any other well-formed key is let through to the store at most once per `lookupIntervalMs`
 *   (a new valid key gets in, and the store sees a bounded trickle of unknown keys);
 * - everything else is refused with the time until the next chance.
 * Counted in this instance's memory: spread over N instances an address gets N times as much,
 * still a bound.
 */
export class AuthFailureThrottle {
  private readonly failures = new Map<string, { windowStart: number; count: number; lookupAt: number }>();
  /** Hashes of keys that authenticated, with the time each was last seen doing so. */
  private readonly known = new Map<string, number>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    readonly lookupIntervalMs = 10_000,
    /** How long a key that authenticated stays one that goes through: an hour. */
    readonly knownForMs = 3_600_000,
    readonly knownKeysMax = 10_000,
  ) {}

  /** Whether no failure is counted: every address is admitted (`admit` answers null). */
  get idle(): boolean {
    return this.failures.size === 0;
  }

  /**
   * Seconds until a request from `address` presenting `keyHash` (null: no well-formed key) may
   * try again, or null when it may go on to authentication now.
   */
  admit(address: string, keyHash: string | null, now: number): number | null {
    const f = this.failures.get(address);
    if (f === undefined || now - f.windowStart >= this.windowMs || f.count < this.limit) return null;
    const windowEnd = f.windowStart + this.windowMs;
    if (keyHash === null) return seconds(windowEnd - now);
    const seen = this.known.get(keyHash);
    if (seen !== undefined && now - seen < this.knownForMs) return null;
    const next = f.lookupAt + this.lookupIntervalMs;
    if (now >= next) {
      f.lookupAt = now;
      return null;
    }
    return seconds(Math.min(next, windowEnd) - now);
  }

  /** A failed authentication from `address`; a key that fails is no longer one that was seen. */
  failed(address: string, keyHash: string | null, now: number): void {
    if (keyHash !== null) this.known.delete(keyHash);
    const f = this.failures.get(address);
    if (f === undefined || now - f.windowStart >= this.windowMs) {
      if (this.failures.size >= 100_000) this.prune(now);
      this.failures.set(address, { windowStart: now, count: 1, lookupAt: 0 });
    } else {
      f.count++;
    }
  }

  /**
   * A key that authenticated (the oldest entry goes when the set is full). A key already seen
   * within the last second keeps its entry as it is: a busy key would otherwise be taken out and
   * put back on every request (bench/RESULTS.md), and a second is nothing beside `knownForMs`.
   */
  succeeded(keyHash: string, now: number): void {
    const seen = this.known.get(keyHash);
    if (seen !== undefined && now - seen < KNOWN_REFRESH_MS) return;
    this.known.delete(keyHash);
    if (this.known.size >= this.knownKeysMax) {
      const oldest = this.known.keys().next();
      if (oldest.done !== true) this.known.delete(oldest.value);
    }
    this.known.set(keyHash, now);
  }

  private prune(now: number): void {
    for (const [address, f] of this.failures)
      if (now - f.windowStart >= this.windowMs) this.failures.delete(address);
  }
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
