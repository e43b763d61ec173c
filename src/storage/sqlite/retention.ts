import type Database from 'better-sqlite3';
import type { RetentionLease, RetentionPolicy, RetentionStore } from '../../retention/retention.port.js';
import { DUE, POLICY_COLUMNS, type PolicyRow, toPolicy } from '../retention-rows.js';

const due = DUE(() => '?');

/** Retention on SQLite (docs/privacy.md "Retention"): policies, due leads, leases, receipt pruning. */
export class SqliteRetentionStore implements RetentionStore {
  private readonly s;

  constructor(db: Database.Database) {
    this.s = {
      all: db.prepare(`SELECT ${POLICY_COLUMNS} FROM retention_policies ORDER BY team_id`),
      one: db.prepare(`SELECT ${POLICY_COLUMNS} FROM retention_policies WHERE team_id = ?`),
      set: db.prepare(`INSERT INTO retention_policies (team_id, days, set_at) VALUES (?, ?, ?)
        ON CONFLICT (team_id) DO UPDATE SET days = excluded.days, set_at = excluded.set_at
        RETURNING ${POLICY_COLUMNS}`),
      clear: db.prepare('DELETE FROM retention_policies WHERE team_id = ?'),
      dueCount: db.prepare(`SELECT count(*) FROM leads WHERE ${due}`).pluck(),
      dueLeads: db.prepare(`SELECT uuid FROM leads WHERE ${due} ORDER BY seq LIMIT ?`).pluck(),
      claim: db
        .prepare(`UPDATE retention_policies SET lease_owner = ?, lease_until = ?
          WHERE team_id = ? AND (lease_owner IS NULL OR lease_owner = ? OR lease_until <= ?)
            AND (last_run_at IS NULL OR last_run_at <= ?)
          RETURNING days`)
        .pluck(),
      finish: db.prepare(`UPDATE retention_policies SET lease_owner = NULL, lease_until = NULL,
          last_run_at = ?, last_erased = ? WHERE team_id = ? AND lease_owner = ?`),
      receiptsBefore: db.prepare('SELECT count(*) FROM erasures WHERE requested_at < ?').pluck(),
      prune: db.prepare('DELETE FROM erasures WHERE requested_at < ?'),
    };
  }

  async policies(): Promise<RetentionPolicy[]> {
    return (this.s.all.all() as PolicyRow[]).map(toPolicy);
  }

  async policy(teamId: number): Promise<RetentionPolicy | null> {
    const row = this.s.one.get(teamId) as PolicyRow | undefined;
    return row === undefined ? null : toPolicy(row);
  }

  async setPolicy(teamId: number, days: number, at: number): Promise<RetentionPolicy> {
    return toPolicy(this.s.set.get(teamId, days, at) as PolicyRow);
  }

  async clearPolicy(teamId: number): Promise<boolean> {
    return this.s.clear.run(teamId).changes > 0;
  }

  async dueCount(teamId: number, cutoff: number): Promise<number> {
    return this.s.dueCount.get(teamId, cutoff, cutoff) as number;
  }

  async dueLeads(teamId: number, cutoff: number, limit: number): Promise<string[]> {
    return this.s.dueLeads.all(teamId, cutoff, cutoff, limit) as string[];
  }

  async claim(teamId: number, l: RetentionLease): Promise<number | null> {
    const days = this.s.claim.get(l.owner, l.until, teamId, l.owner, l.now, l.staleBefore) as
      | number
      | undefined;
    return days ?? null;
  }

  async finish(teamId: number, owner: string, at: number, erased: number): Promise<void> {
    this.s.finish.run(at, erased, teamId, owner);
  }

  async receiptsBefore(before: number): Promise<number> {
    return this.s.receiptsBefore.get(before) as number;
  }

  async pruneReceipts(before: number): Promise<number> {
    return this.s.prune.run(before).changes;
  }
}
