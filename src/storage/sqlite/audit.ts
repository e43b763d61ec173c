import type Database from 'better-sqlite3';
import type { AuditEntry, AuditFilter, AuditStore, NewAuditEntry } from '../../audit/audit.port.js';
import { AUDIT_COLUMNS, type AuditRow, auditValues, toAuditEntry } from '../audit-rows.js';

/** The insert of one audit record: the erasure's transaction runs it too (erasure.ts). */
export const INSERT_AUDIT = `INSERT INTO audit_log (${AUDIT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`;

/** The audit log on SQLite (migration 13): appended to, read newest first by (team_id, id). */
export class SqliteAuditStore implements AuditStore {
  private readonly insert;
  private readonly page;

  constructor(db: Database.Database) {
    this.insert = db.prepare(INSERT_AUDIT);
    this.page = db.prepare(`SELECT id, ${AUDIT_COLUMNS} FROM audit_log
      WHERE (@team IS NULL OR team_id = @team) AND (@action IS NULL OR action = @action)
        AND (@since IS NULL OR at >= @since) AND (@before IS NULL OR id < @before)
      ORDER BY id DESC LIMIT @limit`);
  }

  async record(entry: NewAuditEntry): Promise<AuditEntry> {
    const id = Number(this.insert.run(...auditValues(entry)).lastInsertRowid);
    return { ...entry, id };
  }

  async list(filter: AuditFilter, before: number | null, limit: number): Promise<AuditEntry[]> {
    const rows = this.page.all({
      team: filter.teamId,
      action: filter.action,
      since: filter.since,
      before,
      limit,
    }) as AuditRow[];
    return rows.map(toAuditEntry);
  }
}
