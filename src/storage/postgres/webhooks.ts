import type { Sql } from 'postgres';
import { uuid7 } from '../../shared/uuid7.js';
import {
  type Endpoint,
  type EndpointChanges,
  EndpointLimitReached,
  type EndpointOwner,
  type NewEndpoint,
  type SigningSecrets,
  type WebhookEvent,
} from '../../webhooks/webhook.js';
import type { WebhookStore } from '../../webhooks/webhooks.port.js';
import {
  changed,
  ENDPOINT_COLUMNS,
  type EndpointRow,
  EVENT_COLUMNS,
  EVENT_FROM,
  type EventRow,
  listText,
  ownerTeam,
  toEndpoint,
  toWebhookEvent,
} from '../endpoint-rows.js';

/** Endpoints and the outbox on the primary: delivery state must never be read stale. */
export class PostgresWebhookStore implements WebhookStore {
  private readonly columns;

  constructor(private readonly sql: Sql) {
    this.columns = sql.unsafe(ENDPOINT_COLUMNS);
  }

  /** The owner's condition on webhook_endpoints (no team condition for the operator). */
  private owned(owner: EndpointOwner, id: string) {
    const team = ownerTeam(owner);
    return team === null ? this.sql`id = ${id}` : this.sql`id = ${id} AND team_id = ${team}`;
  }

  /** The team's row is locked first, so registrations for one team count and insert in turn. */
  async addEndpoint(e: NewEndpoint, maxPerTeam = Number.MAX_SAFE_INTEGER): Promise<Endpoint> {
    const [row] = (await this.sql.begin(async (tx) => {
      await tx`SELECT id FROM teams WHERE id = ${e.teamId} FOR NO KEY UPDATE`;
      return tx<EndpointRow[]>`INSERT INTO webhook_endpoints (id, team_id, url, description,
          event_types, member_ids, subteam_ids, secret, created_at, updated_at, created_via, created_by_member,
          created_by_key, include_previous, payload)
        SELECT ${uuid7(e.createdAt)}, ${e.teamId}, ${e.url}, ${e.description}, ${JSON.stringify(e.eventTypes)},
          ${listText(e.members)}, ${listText(e.subteams)}, ${e.secret}, ${e.createdAt}, ${e.createdAt},
          ${e.createdBy?.via ?? null}, ${e.createdBy?.memberId ?? null}, ${e.createdBy?.keyId ?? null},
          ${e.includePrevious === true}, ${e.payload ?? 'full'}
        WHERE (SELECT count(*) FROM webhook_endpoints WHERE team_id = ${e.teamId}) < ${maxPerTeam}
        RETURNING ${this.columns}`;
    })) as EndpointRow[];
    if (row === undefined) throw new EndpointLimitReached(maxPerTeam);
    return toEndpoint(row);
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

  async endpoint(owner: EndpointOwner, id: string): Promise<Endpoint | null> {
    const [row] = await this.sql<EndpointRow[]>`SELECT ${this.columns} FROM webhook_endpoints
      WHERE ${this.owned(owner, id)}`;
    return row === undefined ? null : toEndpoint(row);
  }

  async updateEndpoint(
    owner: EndpointOwner,
    id: string,
    c: EndpointChanges,
    at: number,
  ): Promise<Endpoint | null> {
    return (await this.sql.begin(async (tx) => {
      const [row] = await tx<EndpointRow[]>`SELECT ${this.columns} FROM webhook_endpoints
        WHERE ${this.owned(owner, id)} FOR UPDATE`;
      if (row === undefined) return null;
      const e = changed(toEndpoint(row), c);
      const [after] = await tx<EndpointRow[]>`UPDATE webhook_endpoints SET url = ${e.url},
          description = ${e.description}, event_types = ${JSON.stringify(e.eventTypes)},
          member_ids = ${listText(e.members)}, subteam_ids = ${listText(e.subteams)}, enabled = ${e.enabled},
          disabled_reason = ${e.disabledReason}, include_previous = ${e.includePrevious},
          payload = ${e.payload},
          failing_since = CASE WHEN ${e.failingSinceReset} THEN NULL ELSE failing_since END, updated_at = ${at}
        WHERE id = ${id} RETURNING ${this.columns}`;
      return toEndpoint(after!);
    })) as Endpoint | null;
  }

  async removeEndpoint(owner: EndpointOwner, id: string): Promise<boolean> {
    const rows = await this.sql`DELETE FROM webhook_endpoints WHERE ${this.owned(owner, id)} RETURNING id`;
    return rows.length === 1;
  }

  async rotateSecret(
    owner: EndpointOwner,
    id: string,
    secret: string,
    previousUntil: number,
    at: number,
  ): Promise<Endpoint | null> {
    const [row] = await this.sql<EndpointRow[]>`UPDATE webhook_endpoints SET previous_secret = secret,
        previous_secret_until = ${previousUntil}, secret = ${secret}, updated_at = ${at}
      WHERE ${this.owned(owner, id)} RETURNING ${this.columns}`;
    return row === undefined ? null : toEndpoint(row);
  }

  async signingSecrets(id: string): Promise<SigningSecrets | null> {
    const [row] = await this.sql<SigningSecrets[]>`SELECT secret AS current, previous_secret AS previous,
      previous_secret_until AS "previousUntil" FROM webhook_endpoints WHERE id = ${id}`;
    return row === undefined ? null : { ...row };
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
