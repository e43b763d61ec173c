import type { Sql } from 'postgres';
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
} from '../webhook-rows.js';

/** Endpoints and the outbox on the primary: delivery state must never be read stale. */
export class PostgresWebhookStore implements WebhookStore {
  private readonly columns;

  constructor(private readonly sql: Sql) {
    this.columns = sql.unsafe(ENDPOINT_COLUMNS);
  }

  async addEndpoint(e: NewEndpoint): Promise<Endpoint> {
    const [row] = await this.sql<EndpointRow[]>`INSERT INTO webhook_endpoints (id, team_id, url, description,
        event_types, member_ids, subteam_ids, secret, created_at, updated_at)
      VALUES (${uuid7(e.createdAt)}, ${e.teamId}, ${e.url}, ${e.description}, ${JSON.stringify(e.eventTypes)},
        ${listText(e.members)}, ${listText(e.subteams)}, ${e.secret}, ${e.createdAt}, ${e.createdAt})
      RETURNING ${this.columns}`;
    return toEndpoint(row!);
  }

  async endpoints(teamId: number | null): Promise<Endpoint[]> {
    const rows =
      teamId === null
        ? await this.sql<EndpointRow[]>`SELECT ${this.columns} FROM webhook_endpoints ORDER BY created_at, id`
        : await this.sql<
            EndpointRow[]
          >`SELECT ${this.columns} FROM webhook_endpoints WHERE team_id = ${teamId}
            ORDER BY created_at, id`;
    return rows.map(toEndpoint);
  }

  async events(teamId: number, afterSeq: number, limit: number): Promise<WebhookEvent[]> {
    const rows = await this.sql
      .unsafe(
        `SELECT ${EVENT_COLUMNS} FROM ${EVENT_FROM}
        WHERE e.team_id = $1 AND e.seq > $2 ORDER BY e.seq LIMIT $3`,
        [teamId, afterSeq, limit],
      )
      .values();
    return (rows as unknown as EventRow[]).map(toWebhookEvent);
  }
}
