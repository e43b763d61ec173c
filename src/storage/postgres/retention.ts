import type { Sql } from 'postgres';
import type { RetentionLease, RetentionPolicy, RetentionStore } from '../../retention/retention.port.js';
import { DUE, POLICY_COLUMNS, type PolicyRow, toPolicy } from '../retention-rows.js';

const due = DUE((n) => `$${n}`);

/**
 * Retention on PostgreSQL (docs/privacy.md "Retention"), on the primary: the lease is one
 * UPDATE, so of several instances claiming a team at once exactly one gets it.
 */
export class PostgresRetentionStore implements RetentionStore {
  constructor(private readonly sql: Sql) {}

  async policies(): Promise<RetentionPolicy[]> {
    const rows = await this.sql.unsafe<PolicyRow[]>(
      `SELECT ${POLICY_COLUMNS} FROM retention_policies ORDER BY team_id`,
    );
    return rows.map(toPolicy);
  }

  async policy(teamId: number): Promise<RetentionPolicy | null> {
    const [row] = await this.sql.unsafe<PolicyRow[]>(
      `SELECT ${POLICY_COLUMNS} FROM retention_policies WHERE team_id = $1`,
      [teamId],
    );
    return row === undefined ? null : toPolicy(row);
  }

  async setPolicy(teamId: number, days: number, at: number): Promise<RetentionPolicy> {
    const [row] = await this.sql.unsafe<PolicyRow[]>(
      `INSERT INTO retention_policies (team_id, days, set_at) VALUES ($1, $2, $3)
        ON CONFLICT (team_id) DO UPDATE SET days = excluded.days, set_at = excluded.set_at
        RETURNING ${POLICY_COLUMNS}`,
      [teamId, days, at],
    );
    return toPolicy(row!);
  }

  async clearPolicy(teamId: number): Promise<boolean> {
    return (await this.sql`DELETE FROM retention_policies WHERE team_id = ${teamId}`).count > 0;
  }

  async dueCount(teamId: number, cutoff: number): Promise<number> {
    const [row] = await this.sql.unsafe<{ n: string }[]>(`SELECT count(*) AS n FROM leads WHERE ${due}`, [
      teamId,
      cutoff,
      cutoff,
    ]);
    return Number(row?.n ?? 0);
  }

  async dueLeads(teamId: number, cutoff: number, limit: number): Promise<string[]> {
    const rows = await this.sql.unsafe<{ uuid: string }[]>(
      `SELECT uuid::text AS uuid FROM leads WHERE ${due} ORDER BY seq LIMIT $4`,
      [teamId, cutoff, cutoff, limit],
    );
    return rows.map((r) => r.uuid);
  }

  async claim(teamId: number, l: RetentionLease): Promise<number | null> {
    const [row] = await this.sql<{ days: number }[]>`UPDATE retention_policies
      SET lease_owner = ${l.owner}, lease_until = ${l.until}
      WHERE team_id = ${teamId} AND (lease_owner IS NULL OR lease_owner = ${l.owner} OR lease_until <= ${l.now})
        AND (last_run_at IS NULL OR last_run_at <= ${l.staleBefore})
      RETURNING days`;
    return row === undefined ? null : Number(row.days);
  }

  async finish(teamId: number, owner: string, at: number, erased: number): Promise<void> {
    await this.sql`UPDATE retention_policies SET lease_owner = NULL, lease_until = NULL,
        last_run_at = ${at}, last_erased = ${erased}
      WHERE team_id = ${teamId} AND lease_owner = ${owner}`;
  }

  async receiptsBefore(before: number): Promise<number> {
    const [row] = await this.sql<
      { n: string }[]
    >`SELECT count(*) AS n FROM erasures WHERE requested_at < ${before}`;
    return Number(row?.n ?? 0);
  }

  async pruneReceipts(before: number): Promise<number> {
    return (await this.sql`DELETE FROM erasures WHERE requested_at < ${before}`).count;
  }
}
