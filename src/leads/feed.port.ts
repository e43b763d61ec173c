/**
 * "Something new was stored" (issue 41 §2, docs/v2.md "Waiting for changes"): what a waiting
 * feed request (`wait=`, Server-Sent Events) sleeps on. One signal per store, shared by every
 * waiter of the process: each engine has one source of wake-ups (SQLite: a cheap change marker
 * polled while someone waits; PostgreSQL: one LISTEN connection), fanned out in memory
 * (feed-waiters.ts), so a thousand waiters cost one poll or one connection, not a thousand.
 *
 * A wake-up says only that the team's leads or events *may* have changed: the waiter runs its
 * own query again and sleeps on when it finds nothing new (its scope may not see the change).
 */
export interface FeedSignal {
  /**
   * Starts watching the team's feed. Call it *before* reading the page a wait depends on: a
   * change stored after this resolves wakes the watch, even one stored before `next` is called.
   */
  watch(teamId: number): Promise<FeedWatch>;
  /**
   * `read()` — or the answer of the same read (same team, same `key`: everything the answer
   * depends on) begun since the team's feed last moved, shared. Only for a caller that holds a
   * watch of `teamId`: a change stored after the shared read began wakes that watch, so a waiter
   * never sleeps on an answer older than what it could have read itself. Without any watch open
   * it is `read()`. This is what lets ten thousand waiters at one position cost one query.
   * `mark`: what of an answer shows the feed moved (a page's `next`), so a periodic re-check
   * can read again and wake the team's waiters only when it did.
   */
  shared<T>(teamId: number, key: string, read: () => Promise<T>, mark?: (answer: T) => string): Promise<T>;
  /** How many watches are open in this process (metrics, tests). */
  waiting(): number;
  /** Ends every watch (their `next` resolves false) and stops the source. */
  close(): Promise<void>;
}

export interface FeedWatch {
  /**
   * Resolves true once something may have changed since the watch began or since the last
   * `next` that resolved true; false when `ms` pass, `abort` fires or the signal closes first.
   */
  next(ms: number, abort?: AbortSignal): Promise<boolean>;
  /** Stops watching (a finished or abandoned request): always call it. */
  close(): void;
}
