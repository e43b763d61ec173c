import type Database from 'better-sqlite3';
import type { Brownout } from '../../retirement/gates.js';
import type { NewBrownout, RetirementStore } from '../../retirement/retirement.port.js';
import type { UsageRow } from '../../retirement/usage.js';
import type { V1NoticeDraft, V1NoticeOutcome } from '../../retirement/v1-notices.port.js';
import { toUsageRow, type UsageDbRow } from '../rows.js';
import { SqliteV1Notices } from './v1-notices.js';

interface BrownoutRow {
  id: number;
  starts_at: number;
  ends_at: number;
  key_ids: string | null;
  created_at: number;
}

const toBrownout = (r: BrownoutRow): Brownout => ({
  id: r.id,
  startsAt: r.starts_at,
  endsAt: r.ends_at,
  keyIds: r.key_ids === null ? null : (JSON.parse(r.key_ids) as number[]),
  createdAt: r.created_at,
});

/** Brownout windows and the usage ledger in the embedded store. */
export class SqliteRetirementStore implements RetirementStore {
  private readonly stmts;
  private readonly notices: SqliteV1Notices;

  /**
   * `erasing`: while an erasure runs on the store's erasure thread, a promise of its end (else
   * null) — the usage ledger's flush, a background write, waits on it without holding the
   * serving thread (erasure-thread.ts).
   */
  constructor(
    private readonly db: Database.Database,
    private readonly erasing: () => Promise<void> | null = () => null,
  ) {
    this.notices = new SqliteV1Notices(db);
    this.stmts = {
      addBrownout: db.prepare(
        'INSERT INTO brownouts (starts_at, ends_at, key_ids, created_at) VALUES (?, ?, ?, ?) RETURNING *',
      ),
      brownouts: db.prepare('SELECT * FROM brownouts ORDER BY starts_at, id'),
      removeBrownout: db.prepare('DELETE FROM brownouts WHERE id = ?'),
      // Increments, so every instance adds to the same row; SET reads the row's old values.
      addUsage: db.prepare(`INSERT INTO api_usage
          (key_id, api, operation, day, status, count, first_seen, last_seen, user_agent)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (key_id, api, operation, day, status) DO UPDATE SET
          count = count + excluded.count,
          first_seen = min(first_seen, excluded.first_seen),
          user_agent = CASE WHEN excluded.last_seen >= last_seen THEN excluded.user_agent ELSE user_agent END,
          last_seen = max(last_seen, excluded.last_seen)`),
      // The ledger's key starts with key_id: one range per key.
      v1UsageOfKey: db.prepare(
        "SELECT * FROM api_usage WHERE key_id = ? AND api = 'v1' AND day >= ? ORDER BY operation, day, status",
      ),
      usageSince: db.prepare(
        'SELECT * FROM api_usage WHERE day >= ? ORDER BY key_id, api, operation, day, status',
      ),
    };
  }

  async addBrownout(b: NewBrownout): Promise<Brownout> {
    const keys = b.keyIds === null ? null : JSON.stringify(b.keyIds);
    return toBrownout(this.stmts.addBrownout.get(b.startsAt, b.endsAt, keys, b.createdAt) as BrownoutRow);
  }

  async brownouts(): Promise<Brownout[]> {
    return (this.stmts.brownouts.all() as BrownoutRow[]).map(toBrownout);
  }

  async removeBrownout(id: number): Promise<boolean> {
    return this.stmts.removeBrownout.run(id).changes === 1;
  }

  async addUsage(rows: UsageRow[]): Promise<void> {
    for (let end = this.erasing(); end !== null; end = this.erasing()) await end;
    this.db.transaction(() => {
      for (const r of rows) {
        this.stmts.addUsage.run(
          r.keyId,
          r.api,
          r.operation,
          r.day,
          r.status,
          r.count,
          r.firstSeen,
          r.lastSeen,
          r.userAgent,
        );
      }
    })();
  }

  async usage(sinceDay: string | null): Promise<UsageRow[]> {
    return (this.stmts.usageSince.all(sinceDay ?? '') as UsageDbRow[]).map(toUsageRow);
  }

  async v1UsageOfKeys(keyIds: number[], sinceDay: string): Promise<UsageRow[]> {
    return keyIds.flatMap((id) =>
      (this.stmts.v1UsageOfKey.all(id, sinceDay) as UsageDbRow[]).map(toUsageRow),
    );
  }

  v1UsageBetween(fromDay: string, toDay: string): Promise<UsageRow[]> {
    return this.notices.v1UsageBetween(fromDay, toDay);
  }

  sendV1Notice(draft: V1NoticeDraft): Promise<V1NoticeOutcome> {
    return this.notices.sendV1Notice(draft);
  }
}
