/**
 * What PostgreSQL runs while a bench window lasts (bench/erasure-load.ts with BENCH_TRACE=1): the
 * database's active statements sampled every 5 ms from pg_stat_activity, and each probe put
 * under what the database ran while it was out — the erasure's VACUUM, the erasure's own
 * statements, both, or neither — with the p99 of each group. Where a window's slow probes fall.
 */
import type postgres from 'postgres';
import { quantile } from '../load.js';

type Work = 'vacuum' | 'erasure';

/** The erasure's statements (src/storage/postgres/erasure.ts) and its VACUUM, by their text. */
function workOf(query: string): Work | null {
  const q = query.trimStart();
  if (q.startsWith('VACUUM')) return 'vacuum';
  const erasure =
    /^(WITH RECURSIVE target|UPDATE leads l SET fields = '\{\}'|DELETE FROM (webhook_|idempotency_keys)|INSERT INTO webhook_events)/;
  return erasure.test(q) ? 'erasure' : null;
}

/** A probe: when it was sent (performance.now()) and how long it took, ms. */
export type Probe = [sentAt: number, ms: number];

export interface Group {
  probes: number;
  p99: number;
}

export class DbActivity {
  private samples: { at: number; work: Set<Work> }[] = [];
  private sampling: Promise<void> | null = null;
  private on = false;

  constructor(private readonly sql: postgres.Sql) {}

  start(): void {
    this.samples = [];
    this.on = true;
    this.sampling = this.sample();
  }

  async stop(): Promise<void> {
    this.on = false;
    await this.sampling;
  }

  private async sample(): Promise<void> {
    while (this.on) {
      const at = performance.now();
      const rows = await this.sql<{ q: string }[]>`SELECT left(query, 60) AS q FROM pg_stat_activity
        WHERE state = 'active' AND pid <> pg_backend_pid() AND datname = current_database()`;
      const work = new Set<Work>();
      for (const r of rows) {
        const w = workOf(r.q);
        if (w !== null) work.add(w);
      }
      this.samples.push({ at, work });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** The probes grouped by what the database ran from their sending to their answer. */
  split(probes: Probe[]): Record<string, Group> {
    const groups = new Map<string, number[]>();
    for (const [sentAt, ms] of probes) {
      const seen = new Set<Work>();
      for (const s of this.samples)
        if (s.at >= sentAt - 5 && s.at <= sentAt + ms) for (const w of s.work) seen.add(w);
      const key = seen.size === 0 ? 'neither' : [...seen].sort().join('+');
      groups.set(key, [...(groups.get(key) ?? []), ms]);
    }
    return Object.fromEntries(
      [...groups].map(([k, ms]) => [k, { probes: ms.length, p99: Number(quantile(ms, 0.99).toFixed(2)) }]),
    );
  }
}
