import type Database from 'better-sqlite3';
import type { UsageRow } from '../../retirement/usage.js';
import type { V1NoticeDraft, V1NoticeOutcome, V1NoticeStore } from '../../retirement/v1-notices.port.js';
import { toUsageRow, type UsageDbRow } from '../rows.js';
import { INSERT_TEAM_EVENT } from './webhooks.js';

/** The endpoint lists `v1.usage` (event_types: a JSON array of quoted names). */
const TAKES_V1_USAGE = `event_types LIKE '%"v1.usage"%'`;

/**
 * `v1.usage` notices on the embedded store (docs/webhooks.md "v1.usage"): the claim, the event in
 * the log and the deliveries in one IMMEDIATE transaction, so processes sharing the file write
 * one notice per team and day — logged even when no endpoint takes it.
 */
export class SqliteV1Notices implements V1NoticeStore {
  private readonly s;
  private readonly send: (d: V1NoticeDraft) => V1NoticeOutcome;

  constructor(private readonly db: Database.Database) {
    this.s = {
      // api_usage_day leads with the day: one range, whatever the number of keys.
      usage: db.prepare(
        "SELECT * FROM api_usage WHERE day BETWEEN ? AND ? AND api = 'v1' ORDER BY key_id, operation, day, status",
      ),
      endpoints: db
        .prepare(`SELECT id FROM webhook_endpoints WHERE team_id = ? AND enabled = 1 AND ${TAKES_V1_USAGE}
          ORDER BY created_at, id`)
        .pluck(),
      claim: db.prepare(`INSERT INTO v1_notices (team_id, day, event_id, deliveries, created_at)
        VALUES (?, ?, ?, ?, ?) ON CONFLICT (team_id, day) DO NOTHING`),
      event: db.prepare(INSERT_TEAM_EVENT),
      delivery: db.prepare(`INSERT INTO webhook_deliveries (event_id, endpoint_id, team_id, type, payload,
        created_at, state, attempts, next_attempt_at) VALUES (?, ?, ?, 'v1.usage', ?, ?, 'pending', 0, ?)`),
    };
    const tx = db.transaction((d: V1NoticeDraft): V1NoticeOutcome => {
      const endpoints = this.s.endpoints.all(d.teamId) as string[];
      if (this.s.claim.run(d.teamId, d.day, d.eventId, endpoints.length, d.createdAt).changes === 0)
        return { kind: 'sent-before' };
      this.s.event.run(d.eventId, d.teamId, 'v1.usage', d.createdAt, d.createdAt, d.payload);
      for (const id of endpoints)
        this.s.delivery.run(d.eventId, id, d.teamId, d.payload, d.createdAt, d.createdAt);
      return endpoints.length === 0
        ? { kind: 'no-endpoint' }
        : { kind: 'sent', deliveries: endpoints.length };
    });
    this.send = (d) => tx.immediate(d);
  }

  async v1UsageBetween(fromDay: string, toDay: string): Promise<UsageRow[]> {
    return (this.s.usage.all(fromDay, toDay) as UsageDbRow[]).map(toUsageRow);
  }

  async sendV1Notice(draft: V1NoticeDraft): Promise<V1NoticeOutcome> {
    // Not inside another operation's open transaction (an import's): it would become part of it.
    while (this.db.inTransaction) await new Promise((resolve) => setTimeout(resolve, 5));
    return this.send(draft);
  }
}
