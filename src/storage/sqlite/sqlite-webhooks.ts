import type Database from 'better-sqlite3';
import type { WebhookStore } from '../../domain/store.js';
import { uuid7 } from '../../domain/uuid7.js';
import type { Endpoint, NewEndpoint, WebhookEvent } from '../../domain/webhook.js';
import {
  ENDPOINT_COLUMNS,
  type EndpointRow,
  EVENT_COLUMNS,
  EVENT_FROM,
  type EventRow,
  listText,
  toEndpoint,
  toWebhookEvent,
  wantsLeadCreated,
} from '../webhook-rows.js';

/**
 * Writes a lead's `lead.created` event when its team has an enabled endpoint for the type. Run
 * inside the transaction that stores the lead (v2 creation): both commit or neither does.
 * Parameters: event id, team, lead seq, time, team again.
 */
export const INSERT_LEAD_CREATED = `INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at)
  SELECT ?, ?, 'lead.created', ?, ? WHERE ${wantsLeadCreated('?')}`;

/** The import's two steps: whether a team takes events (asked once a team and import), and the write. */
export const WANTS_LEAD_CREATED = `SELECT ${wantsLeadCreated('?')} AS wants`;
export const INSERT_EVENT = `INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at)
  VALUES (?, ?, 'lead.created', ?, ?)`;

export class SqliteWebhookStore implements WebhookStore {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      insertEndpoint: db.prepare(`INSERT INTO webhook_endpoints (id, team_id, url, description, event_types,
        member_ids, subteam_ids, secret, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      endpoint: db.prepare(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ?`),
      all: db.prepare(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints ORDER BY created_at, id`),
      ofTeam: db.prepare(
        `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE team_id = ? ORDER BY created_at, id`,
      ),
      events: db
        .prepare(`SELECT ${EVENT_COLUMNS} FROM ${EVENT_FROM} WHERE e.team_id = ? AND e.seq > ?
          ORDER BY e.seq LIMIT ?`)
        .raw(true),
    };
  }

  async addEndpoint(e: NewEndpoint): Promise<Endpoint> {
    const id = uuid7(e.createdAt);
    this.stmts.insertEndpoint.run(
      id,
      e.teamId,
      e.url,
      e.description,
      JSON.stringify(e.eventTypes),
      listText(e.members),
      listText(e.subteams),
      e.secret,
      e.createdAt,
      e.createdAt,
    );
    return toEndpoint(this.stmts.endpoint.get(id) as EndpointRow);
  }

  async endpoints(teamId: number | null): Promise<Endpoint[]> {
    const rows = (teamId === null ? this.stmts.all.all() : this.stmts.ofTeam.all(teamId)) as EndpointRow[];
    return rows.map(toEndpoint);
  }

  async events(teamId: number, afterSeq: number, limit: number): Promise<WebhookEvent[]> {
    return (this.stmts.events.all(teamId, afterSeq, limit) as EventRow[]).map(toWebhookEvent);
  }
}
