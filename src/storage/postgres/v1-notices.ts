import type { Sql } from 'postgres';
import type { UsageRow } from '../../retirement/usage.js';
import type { V1NoticeDraft, V1NoticeOutcome, V1NoticeStore } from '../../retirement/v1-notices.port.js';
import { toUsageRow, type UsageDbRow } from '../rows.js';

/**
 * `v1.usage` notices on PostgreSQL (docs/webhooks.md "v1.usage"): the claim and the deliveries in
 * one transaction. Instances racing for a team's day insert the same primary key: the second
 * waits for the first to commit, then inserts nothing and writes no delivery.
 */
export class PostgresV1Notices implements V1NoticeStore {
  constructor(private readonly sql: Sql) {}

  async v1UsageBetween(fromDay: string, toDay: string): Promise<UsageRow[]> {
    const rows = await this.sql<UsageDbRow[]>`SELECT * FROM api_usage
      WHERE day BETWEEN ${fromDay} AND ${toDay} AND api = 'v1' ORDER BY key_id, operation, day, status`;
    return rows.map(toUsageRow);
  }

  async sendV1Notice(d: V1NoticeDraft): Promise<V1NoticeOutcome> {
    return this.sql.begin(async (tx): Promise<V1NoticeOutcome> => {
      const endpoints = await tx<{ id: string }[]>`SELECT id FROM webhook_endpoints
        WHERE team_id = ${d.teamId} AND enabled AND event_types LIKE '%"v1.usage"%' ORDER BY created_at, id`;
      const claimed = await tx`INSERT INTO v1_notices (team_id, day, event_id, deliveries, created_at)
        VALUES (${d.teamId}, ${d.day}, ${d.eventId}, ${endpoints.length}, ${d.createdAt})
        ON CONFLICT (team_id, day) DO NOTHING`;
      if (claimed.count === 0) return { kind: 'sent-before' };
      await tx`INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at, dispatched_at, body)
        VALUES (${d.eventId}, ${d.teamId}, 'v1.usage', NULL, ${d.createdAt}, ${d.createdAt}, ${d.payload})`;
      if (endpoints.length === 0) return { kind: 'no-endpoint' };
      await tx`INSERT INTO webhook_deliveries (event_id, endpoint_id, team_id, type, payload, created_at,
          state, attempts, next_attempt_at)
        SELECT ${d.eventId}, e, ${d.teamId}, 'v1.usage', ${d.payload}, ${d.createdAt}, 'pending', 0, ${d.createdAt}
        FROM unnest(${tx.array(endpoints.map((e) => e.id))}::uuid[]) AS e`;
      return { kind: 'sent', deliveries: endpoints.length };
    });
  }
}
