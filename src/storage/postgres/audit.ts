import type { Sql, TransactionSql } from 'postgres';
import type { AuditEntry, AuditFilter, AuditStore, NewAuditEntry } from '../../audit/audit.port.js';
import { type AuditRow, auditValues, toAuditEntry } from '../audit-rows.js';

/** Appends one record on `sql` — the erasure passes its transaction (erasure.ts). */
export async function insertAudit(sql: Sql | TransactionSql, entry: NewAuditEntry): Promise<number> {
  const [at, team, via, key, member, action, details] = auditValues(entry);
  const [row] = await sql<{ id: string }[]>`INSERT INTO audit_log
      (at, team_id, actor_via, actor_key, actor_member, action, details)
    VALUES (${at}, ${team}, ${via}, ${key}, ${member}, ${action}, ${details}) RETURNING id`;
  return Number(row?.id);
}

/**
 * The audit log on PostgreSQL (migration 13). Ids come from an identity column: allocated in
 * insert order, visible in commit order — newest-first pages are not affected by that.
 */
export class PostgresAuditStore implements AuditStore {
  constructor(private readonly sql: Sql) {}

  async record(entry: NewAuditEntry): Promise<AuditEntry> {
    return { ...entry, id: await insertAudit(this.sql, entry) };
  }

  async list(filter: AuditFilter, before: number | null, limit: number): Promise<AuditEntry[]> {
    const sql = this.sql;
    // Only the conditions given: a generic plan over `$1 IS NULL OR …` could not use the index.
    const team = filter.teamId === null ? sql`` : sql`AND team_id = ${filter.teamId}`;
    const action = filter.action === null ? sql`` : sql`AND action = ${filter.action}`;
    const since = filter.since === null ? sql`` : sql`AND at >= ${filter.since}`;
    const below = before === null ? sql`` : sql`AND id < ${before}`;
    const rows = await sql<AuditRow[]>`SELECT id, at, team_id, actor_via, actor_key, actor_member,
        action, details FROM audit_log
      WHERE true ${team} ${action} ${since} ${below}
      ORDER BY id DESC LIMIT ${limit}`;
    return rows.map(toAuditEntry);
  }
}
