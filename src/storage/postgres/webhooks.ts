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
import {
  FEED_START,
  type FeedPosition,
  formatFeedPosition,
  Params,
  parseFeedPosition,
  scopeCondition,
} from './search.js';

/** Only events of transactions older than every one still running: none can appear behind them. */
const SETTLED = 'e.txid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint';

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

  /**
   * Positions are (txid, seq), as the lead feed's (search.ts changesQuery): seq is drawn before
   * commit, so only settled transactions' events are read. `top`, read first, is the highest
   * settled position: a short page read after it has seen every event up to it.
   */
  async log(q: EventLogQuery): Promise<EventLogPage> {
    const teamId = q.scope.teamId;
    const after = q.after === null ? FEED_START : parseFeedPosition(q.after);
    const [horizon] = await this.sql<{ txid: string; seq: string }[]>`SELECT txid, seq FROM event_horizons
      WHERE team_id = ${teamId}`;
    if (q.after !== null && horizon !== undefined && before(after, position(horizon)))
      return { events: [], positions: [], next: q.after, expired: true };
    const [top] = await this.sql.unsafe<{ txid: string; seq: string }[]>(
      `SELECT e.txid, e.seq FROM webhook_events e WHERE e.team_id = $1 AND ${SETTLED}
        ORDER BY e.txid DESC, e.seq DESC LIMIT 1`,
      [teamId],
    );
    const p = new Params();
    const where = [
      `e.team_id = ${p.add(teamId)}`,
      `(e.txid, e.seq) > (${p.add(after.txid)}, ${p.add(after.seq)})`,
      SETTLED,
    ];
    if (q.types !== null) where.push(`e.type = ANY(${p.add(q.types)}::text[])`);
    const lead = `(e.lead_seq IS NOT NULL AND ${scopeCondition(q.scope, p)})`;
    where.push(q.teamEvents ? `(e.lead_seq IS NULL OR ${lead})` : lead);
    const rows = (await this.sql
      .unsafe(
        `SELECT ${EVENT_COLUMNS}, e.txid AS event_txid FROM ${EVENT_FROM} WHERE ${where.join(' AND ')}
        ORDER BY e.txid, e.seq LIMIT ${p.add(q.limit)}`,
        p.values as never[],
      )
      .values()) as unknown as [...EventRow, string][];
    const events = rows.map((r) => toWebhookEvent(r.slice(0, -1) as unknown as EventRow));
    const positions = rows.map((r) => ({ txid: Number(r.at(-1)), seq: Number(r[0]) }));
    let next = positions.at(-1) ?? after;
    // A short page has seen everything up to `top`; nothing is kept behind the horizon.
    if (events.length < q.limit) {
      for (const bound of [top, horizon])
        if (bound !== undefined && before(next, position(bound))) next = position(bound);
    }
    return {
      events,
      positions: positions.map(formatFeedPosition),
      next: formatFeedPosition(next),
      expired: false,
    };
  }
}

const position = (r: { txid: string | number; seq: string | number }): FeedPosition => ({
  txid: Number(r.txid),
  seq: Number(r.seq),
});

const before = (a: FeedPosition, b: FeedPosition): boolean =>
  a.txid < b.txid || (a.txid === b.txid && a.seq < b.seq);
