import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { MemoryRateLimiter, type RateLimiter, type RateLimitState } from '../rate-limit/fixed-window.js';
import { type CounterTotal, SharedRateLimiter } from '../rate-limit/shared-counters.js';

export type RedisState = 'up' | 'down';

/**
 * Bounds on every Redis call, so a stopped or black-holed Redis costs a request at most about
 * half a second, once: a TCP connect that gets no answer, a command without a reply, a socket
 * that stays silent while commands wait on it (then ioredis drops it and reconnects).
 */
const CONNECT_TIMEOUT_MS = 1000;
const COMMAND_TIMEOUT_MS = 500;
const SOCKET_TIMEOUT_MS = 1000;
const RECONNECT_MAX_MS = 1000;
/**
 * While Redis is down on a connection that still says ready (a pause shorter than the socket
 * timeout, MISCONF, OOM, READONLY…), a write is tried this often to see whether it counts again.
 */
const PROBE_EVERY_MS = 1000;

export interface RedisRateLimiterOptions {
  url: string;
  limit: number;
  windowSeconds: number;
  /** How often counts are shared (LEADLINE_RATE_SYNC_MS): 0 for one round trip per request. */
  syncMs: number;
  /** Namespace of the counters, so deployments sharing a Redis do not share limits. */
  prefix: string;
  logger: Logger;
  now?: () => number;
}

/**
 * Fixed-window counters in Redis (`REDIS_URL`), shared by every instance: INCRBY and a PEXPIRE
 * of two windows in one round trip, so stale counters clean themselves up. How often that trip
 * is made is `SharedRateLimiter`'s (every request with `syncMs` 0, else in the background).
 *
 * A Redis outage is not an API outage (docs/scaling.md, R14): while Redis cannot count, each
 * instance counts in its own memory (the limit then holds per instance), and the change of state
 * is logged once each way through the JSON log.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly fallback: MemoryRateLimiter;
  private readonly shared: SharedRateLimiter;
  private readonly logger: Logger;
  private readonly now: () => number;
  private current: RedisState | 'connecting' = 'connecting';
  private probing = false;
  private closing = false;
  private readonly probeTimer: NodeJS.Timeout;
  private readonly firstState: Promise<void>;
  private reachedFirstState: () => void = () => {};

  constructor(private readonly options: RedisRateLimiterOptions) {
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.fallback = new MemoryRateLimiter(options.limit, options.windowSeconds, this.now);
    this.shared = new SharedRateLimiter(
      { add: (keys, starts, counts) => this.add(keys, starts, counts) },
      options.limit,
      options.windowSeconds,
      options.syncMs,
      this.now,
    );
    this.firstState = new Promise((resolve) => {
      this.reachedFirstState = resolve;
    });
    this.redis = new Redis(options.url, {
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
      socketTimeout: SOCKET_TIMEOUT_MS,
      // Nothing waits for a connection: a command that cannot be sent now fails now, and a counter
      // is never replayed after a reconnect (it was counted in memory meanwhile).
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      // Back within a second of Redis (ioredis's default backs off to 5 s between attempts).
      retryStrategy: (attempt) => Math.min(attempt * 100, RECONNECT_MAX_MS),
    });
    // Without an `error` listener ioredis writes every failed reconnect to stderr as plain text.
    this.redis.on('error', (err: Error) => this.markDown(err));
    this.redis.on('close', () => this.markDown(null));
    this.redis.on('ready', () => this.markUp());
    this.probeTimer = setInterval(() => void this.probe(), PROBE_EVERY_MS);
    this.probeTimer.unref();
  }

  /** Whether the counters are in Redis now (`/readyz` reports it). */
  state(): RedisState {
    return this.current === 'up' ? 'up' : 'down';
  }

  /** Resolves once the first connection has succeeded or failed (at most `waitMs`), so early requests count in Redis. */
  async settled(waitMs = CONNECT_TIMEOUT_MS + SOCKET_TIMEOUT_MS): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
    });
    await Promise.race([this.firstState, timeout]);
    clearTimeout(timer);
  }

  /** Requests never wait on a Redis known to be down: they count in memory until a probe finds it back. */
  async consume(key: string): Promise<RateLimitState> {
    if (this.current !== 'up') return this.fallback.consume(key);
    try {
      return await this.shared.consume(key);
    } catch (err) {
      this.markDown(err as Error);
      return this.fallback.consume(key);
    }
  }

  /** Hands over the counts not shared yet (one try, bounded by the command timeout), then disconnects. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.probeTimer);
    await this.shared.close();
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }

  /** A write (a read would pass on a read-only or full Redis) that expires by itself. */
  private async probe(): Promise<void> {
    if (this.current === 'up' || this.probing || this.redis.status !== 'ready') return;
    this.probing = true;
    try {
      await this.redis.set(`${this.options.prefix}:probe`, '1', 'PX', PROBE_EVERY_MS * 10);
      this.markUp();
    } catch {
      // Still down: already logged when it went down.
    } finally {
      this.probing = false;
    }
  }

  /** Adds each count to its key's counter and answers the totals; a failure marks Redis down. */
  private async add(keys: string[], starts: number[], counts: number[]): Promise<CounterTotal[]> {
    const { windowSeconds, prefix } = this.options;
    const transaction = this.redis.multi();
    keys.forEach((key, i) => {
      const bucket = `${prefix}:rl:${key}:${starts[i]}`;
      transaction.incrby(bucket, counts[i]!).pexpire(bucket, windowSeconds * 2000);
    });
    try {
      const results = await transaction.exec();
      if (results === null) throw new Error('EXEC answered nothing');
      return keys.map((key, i) => {
        const [error, count] = results[2 * i] ?? [new Error('EXEC answered too little'), null];
        if (error) throw error;
        return { key, start: starts[i]!, count: Number(count) };
      });
    } catch (err) {
      this.markDown(err as Error);
      throw err;
    }
  }

  private markUp(): void {
    if (this.closing || this.current === 'up') return;
    // "Again" only after an outage: the first connection of a start is not a recovery.
    const recovered = this.current === 'down';
    this.current = 'up';
    this.reachedFirstState();
    this.logger.info(
      { redis: 'up' },
      recovered
        ? 'redis connected: rate-limit counters are shared again'
        : 'redis connected: rate-limit counters are shared between instances',
    );
  }

  private markDown(err: Error | null): void {
    if (this.closing || this.current === 'down') return;
    this.current = 'down';
    this.reachedFirstState();
    const cause = err === null ? 'connection closed' : err.message;
    const code = (err as { code?: unknown } | null)?.code;
    this.logger.error(
      { redis: 'down', err: { message: cause, ...(typeof code === 'string' ? { code } : {}) } },
      'redis unreachable: rate-limit counters are per instance until it is back',
    );
  }
}
