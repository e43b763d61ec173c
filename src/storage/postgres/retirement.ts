import type { Sql } from 'postgres';
import type { Brownout } from '../../retirement/gates.js';
import type { NewBrownout, RetirementStore } from '../../retirement/retirement.port.js';
import type { UsageRow } from '../../retirement/usage.js';
import type { V1NoticeDraft, V1NoticeOutcome } from '../../retirement/v1-notices.port.js';
import { toUsageRow, type UsageDbRow } from '../rows.js';
import { PostgresV1Notices } from './v1-notices.js';

interface BrownoutRow {
  id: number;
  starts_at: number;
  ends_at: number;
  key_ids: number[] | null;
  created_at: number;
}

const toBrownout = (r: BrownoutRow): Brownout => ({
  id: r.id,
  startsAt: r.starts_at,
  endsAt: r.ends_at,
  keyIds: r.key_ids === null ? null : r.key_ids.map(Number),
  createdAt: r.created_at,
});

/** Brownout windows and the usage ledger, shared by every instance on the database (primary only). */
export class PostgresRetirementStore implements RetirementStore {
  private readonly notices: PostgresV1Notices;

  constructor(private readonly sql: Sql) {
    this.notices = new PostgresV1Notices(sql);
  }

  async addBrownout(b: NewBrownout): Promise<Brownout> {
    const [row] = await this.sql<
      BrownoutRow[]
    >`INSERT INTO brownouts (starts_at, ends_at, key_ids, created_at)
      VALUES (${b.startsAt}, ${b.endsAt}, ${b.keyIds === null ? null : this.sql.array(b.keyIds, 20)}, ${b.createdAt})
      RETURNING *`;
    return toBrownout(row!);
  }

  async brownouts(): Promise<Brownout[]> {
    const rows = await this.sql<BrownoutRow[]>`SELECT * FROM brownouts ORDER BY starts_at, id`;
    return rows.map(toBrownout);
  }

  async removeBrownout(id: number): Promise<boolean> {
    return (await this.sql`DELETE FROM brownouts WHERE id = ${id}`).count === 1;
  }

  /** One statement for the whole flush: rows arrive as arrays and are unnested server-side. */
  async addUsage(rows: UsageRow[]): Promise<void> {
    if (rows.length === 0) return;
    const col = <T>(f: (r: UsageRow) => T) => rows.map(f);
    await this.sql`INSERT INTO api_usage AS u
        (key_id, api, operation, day, status, count, first_seen, last_seen, user_agent)
      SELECT * FROM unnest(
        ${this.sql.array(
          col((r) => r.keyId),
          20,
        )}::bigint[], ${this.sql.array(col((r) => r.api))}::text[],
        ${this.sql.array(col((r) => r.operation))}::text[], ${this.sql.array(col((r) => r.day))}::text[],
        ${this.sql.array(
          col((r) => r.status),
          23,
        )}::int[], ${this.sql.array(
          col((r) => r.count),
          20,
        )}::bigint[],
        ${this.sql.array(
          col((r) => r.firstSeen),
          20,
        )}::bigint[], ${this.sql.array(
          col((r) => r.lastSeen),
          20,
        )}::bigint[],
        ${this.sql.array(col((r) => r.userAgent))}::text[])
      ON CONFLICT (key_id, api, operation, day, status) DO UPDATE SET
        count = u.count + excluded.count,
        first_seen = least(u.first_seen, excluded.first_seen),
        user_agent = CASE WHEN excluded.last_seen >= u.last_seen THEN excluded.user_agent ELSE u.user_agent END,
        last_seen = greatest(u.last_seen, excluded.last_seen)`;
  }

  async usage(sinceDay: string | null): Promise<UsageRow[]> {
    const rows = await this.sql<
      UsageDbRow[]
    >`SELECT * FROM api_usage WHERE day >= ${sinceDay ?? ''} ORDER BY key_id, api, operation, day, status`;
    return rows.map(toUsageRow);
  }

  async v1UsageOfKeys(keyIds: number[], sinceDay: string): Promise<UsageRow[]> {
    if (keyIds.length === 0) return [];
    const rows = await this.sql<UsageDbRow[]>`SELECT * FROM api_usage
      WHERE key_id = ANY(${this.sql.array(keyIds, 20)}::bigint[]) AND api = 'v1' AND day >= ${sinceDay}
      ORDER BY key_id, operation, day, status`;
    return rows.map(toUsageRow);
  }

  v1UsageBetween(fromDay: string, toDay: string): Promise<UsageRow[]> {
    return this.notices.v1UsageBetween(fromDay, toDay);
  }

  sendV1Notice(draft: V1NoticeDraft): Promise<V1NoticeOutcome> {
    return this.notices.sendV1Notice(draft);
  }
}
