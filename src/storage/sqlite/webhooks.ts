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
import type { EventLogPage, EventLogQuery, WebhookStore } from '../../webhooks/webhooks.port.js';
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
import { scopeConditions } from './search.js';

/**
 * Writes a lead's `lead.created` event to the event log (docs/v2.md "Events"), whether or not its
 * team has an endpoint. Run inside the transaction that stores the lead (v2 creation, import):
 * both commit or neither does. Parameters: event id, team, lead seq, time.
 */
export const INSERT_LEAD_CREATED = `INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at)
  VALUES (?, ?, 'lead.created', ?, ?)`;

/**
 * A team-level event (webhook.test, v1.usage) to the event log, written dispatched — its
 * deliveries are written with it: (id, team, type, created at, dispatched at, body).
 */
export const INSERT_TEAM_EVENT = `INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at,
  dispatched_at, body) VALUES (?, ?, ?, NULL, ?, ?, ?)`;

/** The log's walk: the team's events in seq order (a planner with statistics may pick the lead index). */
const LOG_FROM = EVENT_FROM.replace('webhook_events e', 'webhook_events e INDEXED BY webhook_events_team');

/** `?1`-free owner filter: (team, team) — NULL for the operator, who sees every team. */
const OWNED = 'id = ? AND (? IS NULL OR team_id = ?)';

export class SqliteWebhookStore implements WebhookStore {
  private readonly stmts;
  private readonly update;

  constructor(private readonly db: Database.Database) {
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
      horizon: db.prepare('SELECT seq FROM event_horizons WHERE team_id = ?').pluck(),
      top: db.prepare('SELECT max(seq) FROM webhook_events WHERE team_id = ?').pluck(),
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

  /**
   * Positions are seqs, drawn under the write lock: seq order is commit order. The highest seq
   * read before the page: a short page has seen every event up to it, so the next one starts there.
   */
  async log(q: EventLogQuery): Promise<EventLogPage> {
    const teamId = q.scope.teamId;
    const after = q.after === null ? 0 : Number(q.after);
    const horizon = this.stmts.horizon.get(teamId) as number | undefined;
    if (q.after !== null && horizon !== undefined && after < horizon)
      return { events: [], positions: [], next: q.after, expired: true };
    const top = (this.stmts.top.get(teamId) as number | null) ?? 0;
    const where = ['e.team_id = ?', 'e.seq > ?'];
    const params: unknown[] = [teamId, after];
    if (q.types !== null) {
      where.push(`e.type IN (${q.types.map(() => '?').join(', ')})`);
      params.push(...q.types);
    }
    const leads: string[] = [];
    scopeConditions(q.scope, leads, params);
    const lead = `(e.lead_seq IS NOT NULL AND ${leads.join(' AND ')})`;
    where.push(q.teamEvents ? `(e.lead_seq IS NULL OR ${lead})` : lead);
    params.push(q.limit);
    const rows = this.db
      .prepare(`SELECT ${EVENT_COLUMNS} FROM ${LOG_FROM}
        WHERE ${where.join(' AND ')} ORDER BY e.seq LIMIT ?`)
      .raw(true)
      .all(...params) as EventRow[];
    const events = rows.map(toWebhookEvent);
    const last = events.at(-1)?.seq ?? after;
    // A short page has seen everything up to `top`; nothing is kept behind the horizon.
    const next = events.length < q.limit ? Math.max(last, top, horizon ?? 0) : last;
    return { events, positions: events.map((e) => String(e.seq)), next: String(next), expired: false };
  }
}
