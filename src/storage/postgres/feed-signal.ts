import type { Sql } from 'postgres';
import type { FeedSignal, FeedWatch } from '../../leads/feed.port.js';
import { FeedWaiters, type WakeSource } from '../../leads/feed-waiters.js';

/**
 * The channel a committed lead or outbox event is announced on (migration 16's triggers on
 * `leads` and `webhook_events`: the payload is the team's id, once per team and transaction).
 */
export const FEED_CHANNEL = 'leadline_feed';
/** Every watch is woken this often besides, in case a notification was lost (docs/v2.md). */
export const FEED_FALLBACK_MS = 1000;

/**
 * PostgreSQL's "something new was stored": LISTEN on FEED_CHANNEL, on the pool's one listening
 * connection (postgres.js opens a single connection for all of a pool's LISTENs, shared with
 * the keys' channel) — one per process, however many requests wait; notifications are fanned
 * out in memory by team. Started by the first waiter and kept until the store closes. On a
 * (re)connection every watch is woken, as notifications may have been missed meanwhile.
 */
export class PostgresFeedSignal implements FeedSignal {
  private readonly waiters: FeedWaiters;
  private listening: Promise<{ unlisten(): Promise<void> } | null> | null = null;

  constructor(private readonly sql: Sql) {
    const source: WakeSource = { start: () => this.listen(), stop: () => {} };
    this.waiters = new FeedWaiters(source, { fallbackMs: FEED_FALLBACK_MS });
  }

  watch(teamId: number): Promise<FeedWatch> {
    return this.waiters.watch(teamId);
  }

  shared<T>(teamId: number, key: string, read: () => Promise<T>, mark?: (answer: T) => string): Promise<T> {
    return this.waiters.shared(teamId, key, read, mark);
  }

  waiting(): number {
    return this.waiters.waiting();
  }

  async close(): Promise<void> {
    await this.waiters.close();
    const subscription = await this.listening;
    this.listening = null;
    await subscription?.unlisten().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    this.listening ??= this.sql
      .listen(
        FEED_CHANNEL,
        (payload) => this.waiters.wake(/^[0-9]+$/.test(payload) ? Number(payload) : null),
        () => this.waiters.wake(null),
      )
      .catch(() => {
        this.listening = null; // tried again by the next first waiter; the fallback wakes meanwhile
        return null;
      });
    await this.listening;
  }
}
