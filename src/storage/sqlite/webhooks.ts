import type Database from 'better-sqlite3';
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
  wantsLeadCreated,
} from '../endpoint-rows.js';

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

/** `?1`-free owner filter: (team, team) — NULL for the operator, who sees every team. */
const OWNED = 'id = ? AND (? IS NULL OR team_id = ?)';

export class SqliteWebhookStore implements WebhookStore {
  private readonly stmts;
  private readonly update;

  constructor(db: Database.Database) {
    this.stmts = {
      insertEndpoint: db.prepare(`INSERT INTO webhook_endpoints (id, team_id, url, description, event_types,
        member_ids, subteam_ids, secret, created_at, updated_at, created_via, created_by_member, created_by_key,
        include_previous, payload)
        SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
        WHERE (SELECT count(*) FROM webhook_endpoints WHERE team_id = ?) < ?`),
      endpoint: db.prepare(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE ${OWNED}`),
      all: db.prepare(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints ORDER BY created_at, id`),
      ofTeam: db.prepare(
        `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE team_id = ? ORDER BY created_at, id`,
      ),
      write:
        db.prepare(`UPDATE webhook_endpoints SET url = ?, description = ?, event_types = ?, member_ids = ?,
        subteam_ids = ?, enabled = ?, disabled_reason = ?, include_previous = ?, payload = ?,
        failing_since = CASE WHEN ? THEN NULL ELSE failing_since END, updated_at = ? WHERE id = ?`),
      remove: db.prepare(`DELETE FROM webhook_endpoints WHERE ${OWNED}`),
      rotate: db.prepare(`UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_until = ?,
        secret = ?, updated_at = ? WHERE ${OWNED}`),
      secrets: db.prepare(
        'SELECT secret AS current, previous_secret AS previous, previous_secret_until AS previousUntil FROM webhook_endpoints WHERE id = ?',
      ),
      events: db
        .prepare(`SELECT ${EVENT_COLUMNS} FROM ${EVENT_FROM} WHERE e.team_id = ? AND e.seq > ?
          ORDER BY e.seq LIMIT ?`)
        .raw(true),
    };
    this.update = db.transaction((owner: EndpointOwner, id: string, c: EndpointChanges, at: number) => {
      const before = this.find(owner, id);
      if (before === null) return null;
      const e = changed(before, c);
      this.stmts.write.run(
        e.url,
        e.description,
        JSON.stringify(e.eventTypes),
        listText(e.members),
        listText(e.subteams),
        e.enabled ? 1 : 0,
        e.disabledReason,
        e.includePrevious ? 1 : 0,
        e.payload,
        e.failingSinceReset ? 1 : 0,
        at,
        id,
      );
      return this.find(owner, id);
    });
  }

  private find(owner: EndpointOwner, id: string): Endpoint | null {
    const team = ownerTeam(owner);
    const row = this.stmts.endpoint.get(id, team, team) as EndpointRow | undefined;
    return row === undefined ? null : toEndpoint(row);
  }

  async addEndpoint(e: NewEndpoint, maxPerTeam = Number.MAX_SAFE_INTEGER): Promise<Endpoint> {
    const id = uuid7(e.createdAt);
    const added = this.stmts.insertEndpoint.run(
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
      e.createdBy?.via ?? null,
      e.createdBy?.memberId ?? null,
      e.createdBy?.keyId ?? null,
      e.includePrevious === true ? 1 : 0,
      e.payload ?? 'full',
      e.teamId,
      maxPerTeam,
    );
    if (added.changes === 0) throw new EndpointLimitReached(maxPerTeam);
    return this.find('operator', id)!;
  }

  async endpoints(teamId: number | null): Promise<Endpoint[]> {
    const rows = (teamId === null ? this.stmts.all.all() : this.stmts.ofTeam.all(teamId)) as EndpointRow[];
    return rows.map(toEndpoint);
  }

  async endpoint(owner: EndpointOwner, id: string): Promise<Endpoint | null> {
    return this.find(owner, id);
  }

  async updateEndpoint(
    owner: EndpointOwner,
    id: string,
    c: EndpointChanges,
    at: number,
  ): Promise<Endpoint | null> {
    return this.update.immediate(owner, id, c, at);
  }

  async removeEndpoint(owner: EndpointOwner, id: string): Promise<boolean> {
    const team = ownerTeam(owner);
    return this.stmts.remove.run(id, team, team).changes === 1;
  }

  async rotateSecret(
    owner: EndpointOwner,
    id: string,
    secret: string,
    previousUntil: number,
    at: number,
  ): Promise<Endpoint | null> {
    const team = ownerTeam(owner);
    if (this.stmts.rotate.run(previousUntil, secret, at, id, team, team).changes === 0) return null;
    return this.find(owner, id);
  }

  async signingSecrets(id: string): Promise<SigningSecrets | null> {
    return (this.stmts.secrets.get(id) as SigningSecrets | undefined) ?? null;
  }

  async events(teamId: number, afterSeq: number, limit: number): Promise<WebhookEvent[]> {
    return (this.stmts.events.all(teamId, afterSeq, limit) as EventRow[]).map(toWebhookEvent);
  }
}
