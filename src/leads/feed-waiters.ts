import type { FeedSignal, FeedWatch } from './feed.port.js';

/** Where wake-ups come from: started with the first watch, stopped after the last one closes. */
export interface WakeSource {
  /** Resolves once a change from now on is sure to be reported (a LISTEN in place, a marker read). */
  start(): Promise<void> | void;
  stop(): void;
}

export interface FeedWaitersOptions {
  /**
   * A wake-up of every watch this often while any is open, in case a notification was lost (a
   * dropped connection, a read replica behind the primary); 0: none.
   */
  fallbackMs: number;
}

/**
 * The in-memory fan-out behind a FeedSignal: watches by team, and `wake(team)` from the engine's
 * source. Wake-ups are coalesced: however many arrive in one turn of the event loop (an import
 * commits thousands of leads), each watch is woken once, on the next turn.
 */
export class FeedWaiters implements FeedSignal {
  private readonly byTeam = new Map<number, Set<Watch>>();
  private count = 0;
  /** Teams woken this turn; `null` in it: every team. */
  private pending: Set<number | null> | null = null;
  private fallback: ReturnType<typeof setInterval> | null = null;
  private starting: Promise<void> | null = null;
  private closed = false;

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

  /** Something may have changed for `teamId` (null: for any team). */
  wake(teamId: number | null): void {
    if (this.count === 0) return;
    if (this.pending === null) {
      this.pending = new Set();
      setImmediate(() => this.flush());
    }
    this.pending.add(teamId);
  }

  async close(): Promise<void> {
    this.closed = true;
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
      this.fallback = setInterval(() => this.wake(null), this.options.fallbackMs);
      this.fallback.unref();
    }
  }

  private release(watch: Watch, teamId: number): void {
    const team = this.byTeam.get(teamId);
    if (team === undefined || !team.delete(watch)) return;
    if (team.size === 0) this.byTeam.delete(teamId);
    if (--this.count > 0) return;
    if (this.fallback !== null) clearInterval(this.fallback);
    this.fallback = null;
    this.source.stop();
  }
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
