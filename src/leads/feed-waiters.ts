import type { FeedSignal, FeedWatch } from './feed.port.js';

/** Where wake-ups come from: started with the first watch, stopped after the last one closes. */
export interface WakeSource {
  /** Resolves once a change from now on is sure to be reported (a LISTEN in place, a marker read). */
  start(): Promise<void> | void;
  stop(): void;
}

export interface FeedWaitersOptions {
  /**
   * A re-check this often while any watch is open, in case a change came without a wake-up (a
   * lost notification, a read replica behind the primary, a row held back until an older
   * transaction ended); 0: none. Each kept shared read given a `mark` is read again, and its
   * team woken only if the mark moved; a team with a watch but no such read is woken.
   */
  fallbackMs: number;
}

/** How many shared reads are kept per team before the oldest is dropped (distinct scopes, positions). */
const SHARED_PER_TEAM = 256;

/**
 * The in-memory fan-out behind a FeedSignal: watches by team, and `wake(team)` from the engine's
 * source. Wake-ups are coalesced: however many arrive in one turn of the event loop (an import
 * commits thousands of leads), each watch is woken once, on the next turn.
 *
 * Shared reads (FeedSignal.shared): a read is kept, by team and key, from when it begins until
 * the team's next wake-up *arrives* (not when it is flushed), and only while a watch is open —
 * the source runs only then. Why that is safe: a change stored after the read began is followed
 * by a wake-up of its team; a waiter that takes the kept answer did so before that wake-up, so it
 * was already watching and is woken by it.
 */
export class FeedWaiters implements FeedSignal {
  private readonly byTeam = new Map<number, Set<Watch>>();
  private count = 0;
  /** Teams woken this turn; `null` in it: every team. */
  private pending: Set<number | null> | null = null;
  private fallback: ReturnType<typeof setInterval> | null = null;
  private starting: Promise<void> | null = null;
  private closed = false;
  private readonly reads = new Map<number, Map<string, Kept>>();
  /** Teams that lost a kept read to the cap since their last wake-up: the re-check wakes them. */
  private readonly dropped = new Set<number>();
  private rechecking = false;

  constructor(
    private readonly source: WakeSource,
    private readonly options: FeedWaitersOptions,
  ) {}

  async watch(teamId: number): Promise<FeedWatch> {
    const watch = new Watch(() => this.release(watch, teamId));
    if (this.closed) {
      watch.end();
      return watch;
    }
    let team = this.byTeam.get(teamId);
    if (team === undefined) {
      team = new Set();
      this.byTeam.set(teamId, team);
    }
    team.add(watch);
    if (this.count++ === 0) this.begin();
    // Every watcher waits for the source: the first one's change must not slip past a LISTEN not yet in place.
    await this.starting;
    return watch;
  }

  waiting(): number {
    return this.count;
  }

  shared<T>(teamId: number, key: string, read: () => Promise<T>, mark?: (answer: T) => string): Promise<T> {
    if (this.count === 0 || this.closed) return read();
    let team = this.reads.get(teamId);
    if (team === undefined) {
      team = new Map();
      this.reads.set(teamId, team);
    }
    const kept = team.get(key);
    if (kept !== undefined) return kept.answer as Promise<T>;
    const answer = read();
    if (team.size >= SHARED_PER_TEAM) {
      team.delete(team.keys().next().value as string);
      this.dropped.add(teamId);
    }
    team.set(key, { answer, read, mark: mark as ((answer: unknown) => string) | undefined });
    // A failed read is not kept: the next waiter tries for itself.
    const forget = team;
    answer.catch(() => {
      if (forget.get(key)?.answer === answer) forget.delete(key);
    });
    return answer;
  }

  /** Something may have changed for `teamId` (null: for any team). */
  wake(teamId: number | null): void {
    if (this.count === 0) return;
    if (teamId === null) {
      this.reads.clear();
      this.dropped.clear();
    } else {
      this.reads.delete(teamId);
      this.dropped.delete(teamId);
    }
    if (this.pending === null) {
      this.pending = new Set();
      setImmediate(() => this.flush());
    }
    this.pending.add(teamId);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.reads.clear();
    for (const team of this.byTeam.values()) for (const w of team) w.end();
  }

  private flush(): void {
    const teams = this.pending;
    this.pending = null;
    if (teams === null) return;
    if (teams.has(null)) {
      for (const team of this.byTeam.values()) for (const w of team) w.poke();
      return;
    }
    for (const id of teams) if (id !== null) for (const w of this.byTeam.get(id) ?? []) w.poke();
  }

  private begin(): void {
    this.starting = Promise.resolve()
      .then(() => this.source.start())
      .catch(() => undefined); // the fallback wakes watches while the source cannot start
    if (this.options.fallbackMs > 0) {
      this.fallback = setInterval(() => void this.recheck(), this.options.fallbackMs);
      this.fallback.unref();
    }
  }

  /**
   * The fallback: for each team watched, its kept reads read again; the team is woken when one's
   * mark moved (or cannot be compared). Nothing changed: no watch is woken — ten thousand
   * waiters cost one query per distinct read, not ten thousand continuations.
   */
  private async recheck(): Promise<void> {
    if (this.rechecking) return;
    this.rechecking = true;
    try {
      for (const teamId of [...this.byTeam.keys()]) {
        const kept = this.reads.get(teamId);
        if (kept === undefined || kept.size === 0 || this.dropped.has(teamId)) {
          this.wake(teamId);
          continue;
        }
        for (const [key, entry] of [...kept]) {
          if (!(await this.unmoved(entry))) {
            // Woken meanwhile (the entry is gone): that wake-up already did it.
            if (this.reads.get(teamId)?.get(key) === entry) this.wake(teamId);
            break;
          }
        }
      }
    } finally {
      this.rechecking = false;
    }
  }

  private async unmoved(entry: Kept): Promise<boolean> {
    const { mark } = entry;
    if (mark === undefined) return false;
    try {
      const [before, now] = await Promise.all([entry.answer, entry.read()]);
      return mark(before) === mark(now);
    } catch {
      return false;
    }
  }

  private release(watch: Watch, teamId: number): void {
    const team = this.byTeam.get(teamId);
    if (team === undefined || !team.delete(watch)) return;
    if (team.size === 0) this.byTeam.delete(teamId);
    if (--this.count > 0) return;
    this.reads.clear(); // nothing keeps them fresh once the source stops
    this.dropped.clear();
    if (this.fallback !== null) clearInterval(this.fallback);
    this.fallback = null;
    this.source.stop();
  }
}

/** A shared read: its answer, and how to read and mark it again for the fallback's re-check. */
interface Kept {
  answer: Promise<unknown>;
  read: () => Promise<unknown>;
  mark: ((answer: unknown) => string) | undefined;
}

class Watch implements FeedWatch {
  private changed = false;
  private ended = false;
  private settle: ((changed: boolean) => void) | null = null;

  constructor(private readonly release: () => void) {}

  poke(): void {
    this.changed = true;
    this.settle?.(true);
  }

  end(): void {
    this.ended = true;
    this.settle?.(false);
  }

  next(ms: number, abort?: AbortSignal): Promise<boolean> {
    if (this.changed) {
      this.changed = false;
      return Promise.resolve(true);
    }
    if (this.ended || ms <= 0 || abort?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), ms);
      const onAbort = () => done(false);
      const done = (changed: boolean) => {
        clearTimeout(timer);
        abort?.removeEventListener('abort', onAbort);
        this.settle = null;
        if (changed) this.changed = false;
        resolve(changed);
      };
      abort?.addEventListener('abort', onAbort, { once: true });
      this.settle = done;
    });
  }

  close(): void {
    this.settle?.(false);
    this.release();
  }
}
