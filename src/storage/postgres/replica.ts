import type { Sql } from 'postgres';

/** A replica is used for reads only while it is at most this far behind the primary. */
export const MAX_REPLICA_LAG_MS = 500;
const PROBE_INTERVAL_MS = 200;

export type ReplicaState = 'fresh' | 'lagging' | 'unreachable';

/**
 * Decides, all the time, whether reads may go to the read replica. Every probe samples the
 * primary's WAL position, then asks how far the replica has replayed: the replica is fresh as
 * of the newest primary sample it has replayed past. Reads go to it only while that is recent
 * enough (MAX_REPLICA_LAG_MS, inside the one-second rule); otherwise to the primary. So a lead
 * written a moment ago is never read from a replica that has not seen it yet for longer than that.
 */
export class ReplicaRouter {
  private samples: { at: number; lsn: string }[] = [];
  private freshAsOf = 0;
  private reachable = false;
  private timer: NodeJS.Timeout | null = null;
  private probing: Promise<void> | null = null;

  constructor(
    private readonly primary: Sql,
    private readonly replica: Sql,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.probing ??= this.probe().finally(() => {
        this.probing = null;
      });
    }, PROBE_INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    await this.probing;
  }

  state(): ReplicaState {
    if (!this.reachable) return 'unreachable';
    return this.now() - this.freshAsOf <= MAX_REPLICA_LAG_MS ? 'fresh' : 'lagging';
  }

  /** Seconds between now and the newest primary position the replica had replayed at its last probe; null while unreachable. */
  lagSeconds(): number | null {
    if (!this.reachable) return null;
    return Math.max(0, this.now() - this.freshAsOf) / 1000;
  }

  /** The pool a read should use now. */
  reads(): Sql {
    return this.state() === 'fresh' ? this.replica : this.primary;
  }

  async probe(): Promise<void> {
    try {
      const at = this.now();
      const [p] = await this.primary<{ lsn: string }[]>`SELECT pg_current_wal_lsn()::text AS lsn`;
      if (p !== undefined) this.samples.push({ at, lsn: p.lsn });
      const [r] = await this.replica<
        { replayed: string | null }[]
      >`SELECT pg_last_wal_replay_lsn()::text AS replayed`;
      this.reachable = r?.replayed != null;
      if (r?.replayed == null) return;
      const replayed = lsnValue(r.replayed);
      let newest = -1;
      this.samples.forEach((s, i) => {
        if (lsnValue(s.lsn) <= replayed) newest = i;
      });
      if (newest >= 0) {
        this.freshAsOf = Math.max(this.freshAsOf, this.samples[newest]!.at);
        this.samples = this.samples.slice(newest + 1);
      }
      this.samples = this.samples.slice(-50);
    } catch {
      this.reachable = false;
    }
  }
}

/** A WAL position `hi/lo` (hex) as one comparable number. */
function lsnValue(lsn: string): bigint {
  const [hi = '0', lo = '0'] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
}
