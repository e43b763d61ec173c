import type Database from 'better-sqlite3';
import { FeedWaiters, type WakeSource } from '../../leads/feed-waiters.js';

/** How often the change marker is read while someone waits (docs/v2.md "Waiting for changes"). */
export const FEED_POLL_MS = 25;

/**
 * The embedded store's "something new was stored": no notifications cross SQLite connections
 * (another process, the erasure thread), so while at least one request waits, one timer reads a
 * change marker every FEED_POLL_MS — the feed clock (migration 10; every create, change, merge,
 * erasure and import draws from it, on whichever connection) and the newest outbox event — and
 * wakes every watch when it moved. Two single-row index reads, 40 times a second, only while
 * someone waits; nothing at all otherwise. One file holds one team or many: a wake-up is for all.
 */
export function sqliteFeedSignal(db: Database.Database): FeedWaiters {
  const marker = db.prepare(
    `SELECT (SELECT pos FROM feed_clock WHERE id = 1) || ':' || coalesce((SELECT max(rowid) FROM webhook_events), 0)`,
  );
  marker.pluck();
  let timer: ReturnType<typeof setInterval> | null = null;
  let last: unknown = null;
  const read = (): unknown => (db.open ? marker.get() : last);
  const source: WakeSource = {
    start() {
      last = read();
      timer = setInterval(() => {
        const now = read();
        if (now !== last) {
          last = now;
          waiters.wake(null);
        }
      }, FEED_POLL_MS);
      timer.unref();
    },
    stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
    },
  };
  // The poll is the source; no fallback needed beside it.
  const waiters = new FeedWaiters(source, { fallbackMs: 0 });
  return waiters;
}
