// Longer than the ~250 lines most files keep to: the DeliveryStore port on PostgreSQL, one method
// per outbox step (dispatch, claim, record, list, replay); split by method it would scatter
// statements that share one locking discipline.
import type { Sql, TransactionSql } from 'postgres';
import { uuid7 } from '../../shared/uuid7.js';
import type { DeliveryStore, WebhookBacklog } from '../../webhooks/deliveries.port.js';
import {
  type AttemptOutcome,
  type AttemptResult,
  CLAIM_LEASE_MS,
  type ClaimedDelivery,
  type DeliveryPage,
  type DeliveryRecord,
  type DeliveryState,
  deliveryAfter,
  endpointChanges,
  type FinishedAttempt,
  MAX_ATTEMPTS,
  type TeamShare,
} from '../../webhooks/delivery.js';
import { disabledNotices, planDeliveries, testPayload } from '../../webhooks/plan.js';
import {
  type DisabledEndpoint,
  type EndpointOwner,
  endpointDisabledPayload,
} from '../../webhooks/webhook.js';
import {
  ATTEMPT_COLUMNS,
  type AttemptRow,
  CLAIM_COLUMNS,
  type ClaimRow,
  DELIVERY_COLUMNS,
  type DeliveryRow,
  toClaimed,
  toDeliveryRecords,
} from '../delivery-rows.js';
import {
  ENDPOINT_COLUMNS,
  type EndpointRow,
  EVENT_COLUMNS,
  EVENT_FROM,
  type EventRow,
  ownerTeam,
  toEndpoint,
  toWebhookEvent,
} from '../endpoint-rows.js';

/**
 * Deliveries on PostgreSQL, shared by every instance: events and due deliveries are taken with
 * FOR UPDATE SKIP LOCKED, so instances work side by side and never take the same row; a claimed
 * delivery is leased by moving its next_attempt_at past the attempt.
 */

/**
 * How many of a team's due deliveries a claim reads, at least `n`: the next power of two, so that
 * the claim's text (its LIMIT is written in) comes in a handful of prepared forms, not one per n.
 */
const scanLimit = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, Math.floor(n))));

/** A read of deliveries and their attempts sees one state of both (BEGIN … REPEATABLE READ). */
const SNAPSHOT = 'isolation level repeatable read read only';

export class PostgresDeliveryStore implements DeliveryStore {
  private readonly endpointColumns;

  /** Few round trips a batch, off the serving thread: a larger batch makes fewer. */
  readonly dispatchBatch = 500;
  constructor(private readonly sql: Sql) {
    this.endpointColumns = sql.unsafe(ENDPOINT_COLUMNS);
  }

  /**
   * A batch of waiting events turned into deliveries, in one transaction. The events are looked
   * for among the `limit` × 4 seqs from the oldest waiting one: whatever the statistics say (none,
   * where autovacuum is off), a plan can then read that stretch of the waiting index and no more;
   * seqs it holds that are not waiting (dispatched already, or rolled back) only make the batch
   * smaller. Only events of teams with an enabled endpoint are read with their leads: most teams
   * have none, and theirs are just marked dispatched.
   */
  async dispatch(limit: number, now: number): Promise<number> {
    return (await this.sql.begin(async (tx) => {
      const waiting = await tx<{ seq: number; team_id: number }[]>`WITH head AS (
          SELECT min(seq) AS seq FROM webhook_events WHERE dispatched_at IS NULL)
        SELECT w.seq, w.team_id FROM webhook_events w, head
        WHERE w.dispatched_at IS NULL AND w.seq >= head.seq AND w.seq < head.seq + ${4 * limit}
        ORDER BY w.seq LIMIT ${limit} FOR UPDATE OF w SKIP LOCKED`;
      if (waiting.length === 0) return 0;
      const teams = [...new Set(waiting.map((w) => w.team_id))];
      const endpoints = (
        await tx<EndpointRow[]>`SELECT ${this.endpointColumns} FROM webhook_endpoints
          WHERE team_id = ANY(${tx.array(teams)}::bigint[]) AND enabled`
      ).map(toEndpoint);
      const served = new Set(endpoints.map((e) => e.teamId));
      const wanted = waiting.filter((w) => served.has(w.team_id)).map((w) => w.seq);
      const events =
        wanted.length === 0
          ? []
          : (
              (await tx
                .unsafe(
                  // Each event with its lead and member by their keys (OFFSET 0 keeps the
                  // subquery three index probes per seq): the read is the batch's size whatever
                  // the tables' sizes and statistics.
                  `SELECT x.* FROM unnest($1::bigint[]) AS w(seq)
                    CROSS JOIN LATERAL (SELECT ${EVENT_COLUMNS} FROM ${EVENT_FROM} WHERE e.seq = w.seq OFFSET 0) x
                    ORDER BY w.seq`,
                  [wanted],
                )
                .values()) as unknown as EventRow[]
            ).map(toWebhookEvent);
      const members = [...new Set(events.flatMap((e) => (e.lead === null ? [] : [e.lead.userId])))];
      const memberships = endpoints.some((e) => e.subteams !== null)
        ? await tx<{ team_id: number; member_id: number; subteam_id: number }[]>`SELECT team_id, member_id,
            subteam_id FROM subteam_members WHERE team_id = ANY(${tx.array(teams)}::bigint[])
            AND member_id = ANY(${tx.array(members)}::bigint[]) AND is_member`
        : [];
      const planned = planDeliveries(events, endpoints, (t, m) =>
        memberships.filter((r) => r.team_id === t && r.member_id === m).map((r) => r.subteam_id),
      );
      if (planned.length > 0) {
        const col = <K extends keyof (typeof planned)[number]>(k: K) =>
          tx.array(planned.map((d) => d[k]) as never[]);
        await tx`INSERT INTO webhook_deliveries (event_id, endpoint_id, team_id, type, payload, created_at, state,
            attempts, next_attempt_at)
          SELECT *, 'pending', 0, ${now}::bigint FROM unnest(${col('eventId')}::uuid[], ${col('endpointId')}::uuid[],
            ${col('teamId')}::bigint[], ${col('type')}::text[], ${col('payload')}::text[], ${col('createdAt')}::bigint[])
          ON CONFLICT (event_id, endpoint_id) DO NOTHING`;
      }
      await tx`UPDATE webhook_events SET dispatched_at = ${now}
        WHERE seq = ANY(${tx.array(waiting.map((w) => w.seq))}::bigint[])`;
      return waiting.length;
    })) as number;
  }

  /**
   * One statement: the teams with pending deliveries found by a skip scan of the team index (a
   * probe per team), each team's oldest due deliveries up to its allowance, the oldest of those
   * locked (SKIP LOCKED: rows another instance holds are left to it) and leased.
   *
   * Written so that its plan does not hang on the tables' statistics (a generic plan made while
   * the outbox was small, or none at all where autovacuum is off): each team's read is one table,
   * ordered as its index, under a LIMIT written into the text (a parameter's LIMIT is planned as
   * 10 % of the rows, which made it a bitmap scan and a sort of the team's whole backlog); the
   * allowance is applied after it; the lock finds its rows by primary key (`id = ANY`).
   */
  async claim(limit: number, now: number, share?: TeamShare): Promise<ClaimedDelivery[]> {
    const perTeam = share?.perTeam ?? limit;
    const held = [...(share?.held ?? new Map<number, number>())];
    const scan = this.sql.unsafe(String(scanLimit(Math.min(limit, perTeam))));
    const rows = await this.sql<ClaimRow[]>`WITH RECURSIVE teams(team) AS (
        (SELECT team_id FROM webhook_deliveries WHERE state = 'pending' ORDER BY team_id LIMIT 1)
        UNION ALL
        SELECT (SELECT team_id FROM webhook_deliveries WHERE state = 'pending' AND team_id > teams.team
          ORDER BY team_id LIMIT 1) FROM teams WHERE teams.team IS NOT NULL
      ), allowance AS (
        SELECT t.team, LEAST(${limit}::int, ${perTeam}::int - coalesce(h.held, 0)) AS n FROM teams t
        LEFT JOIN unnest(${this.sql.array(held.map(([t]) => t))}::bigint[],
          ${this.sql.array(held.map(([, n]) => n))}::int[]) AS h(team, held) ON h.team = t.team
        WHERE t.team IS NOT NULL
      ), candidates AS MATERIALIZED (
        SELECT c.id FROM (
          SELECT c.id, c.next_attempt_at, a.n,
            row_number() OVER (PARTITION BY a.team ORDER BY c.next_attempt_at) AS rank
          FROM allowance a CROSS JOIN LATERAL (
            SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
            WHERE d.team_id = a.team AND d.state = 'pending' AND d.next_attempt_at <= ${now}
              AND d.attempts < ${MAX_ATTEMPTS}
              AND d.endpoint_id <> ALL (ARRAY(SELECT id FROM webhook_endpoints WHERE NOT enabled))
            ORDER BY d.next_attempt_at LIMIT ${scan}) c
          WHERE a.n > 0) c
        WHERE c.rank <= c.n ORDER BY c.next_attempt_at LIMIT ${limit}
      ), due AS (
        SELECT d.id FROM webhook_deliveries d WHERE d.id = ANY (ARRAY(SELECT id FROM candidates))
          AND d.state = 'pending' AND d.next_attempt_at <= ${now}
        FOR UPDATE OF d SKIP LOCKED)
      UPDATE webhook_deliveries d SET attempts = d.attempts + 1, next_attempt_at = ${now + CLAIM_LEASE_MS}
      FROM due, webhook_endpoints e WHERE d.id = due.id AND e.id = d.endpoint_id
      RETURNING ${this.sql.unsafe(CLAIM_COLUMNS)}`;
    return rows.map(toClaimed);
  }

  /**
   * One statement, so one round trip per batch: the attempts inserted, the deliveries' next steps
   * (only where the attempt count is still the claim's) and the endpoints' health, all from arrays.
   * Endpoint rows are touched in id order, and a healthy endpoint's row is not written at all.
   */
  async recordAttempts(batch: readonly FinishedAttempt[]): Promise<DisabledEndpoint[]> {
    if (batch.length === 0) return [];
    const changes = endpointChanges(batch);
    if (changes.every((c) => c.disable === null)) {
      await this.recordIn(this.sql, batch, changes);
      return [];
    }
    // Rare: the batch disables endpoints. Which of them were still enabled is read under lock, in
    // id order as the record's update takes them, so the notice goes out once.
    return (await this.sql.begin(async (tx) => {
      const disabling = changes.filter((c) => c.disable !== null).map((c) => c.endpointId);
      const live = await tx<{ id: string; team_id: number; url: string }[]>`SELECT id, team_id, url
        FROM webhook_endpoints WHERE id = ANY(${tx.array(disabling)}::uuid[]) AND enabled
        ORDER BY id FOR UPDATE`;
      await this.recordIn(tx, batch, changes);
      const disabled: DisabledEndpoint[] = [];
      for (const row of live) {
        const c = changes.find((x) => x.endpointId === row.id)!;
        const d: DisabledEndpoint = {
          endpointId: row.id,
          teamId: Number(row.team_id),
          url: row.url,
          ...c.disable!,
        };
        const others = (
          await tx<EndpointRow[]>`SELECT ${this.endpointColumns} FROM webhook_endpoints
            WHERE team_id = ${d.teamId}`
        ).map(toEndpoint);
        // The event in the log (dispatched: its deliveries are written with it), then its deliveries.
        const eventId = uuid7(d.at);
        await tx`INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at, dispatched_at, body)
          VALUES (${eventId}, ${d.teamId}, 'webhook.endpoint.disabled', NULL, ${d.at}, ${d.at},
            ${endpointDisabledPayload(d, 'full')})`;
        for (const n of disabledNotices(d, eventId, others)) {
          await tx`INSERT INTO webhook_deliveries (event_id, endpoint_id, team_id, type, payload, created_at,
              state, attempts, next_attempt_at)
            VALUES (${n.eventId}, ${n.endpointId}, ${n.teamId}, ${n.type}, ${n.payload}, ${n.createdAt},
              'pending', 0, ${n.createdAt})
            ON CONFLICT (event_id, endpoint_id) DO NOTHING`;
        }
        disabled.push(d);
      }
      return disabled;
    })) as DisabledEndpoint[];
  }

  /** The batch's one statement, on `sql` (the store's pool, or a transaction). */
  private async recordIn(
    sql: Sql | TransactionSql,
    batch: readonly FinishedAttempt[],
    changes: ReturnType<typeof endpointChanges>,
  ): Promise<void> {
    const arr = <T>(xs: T[]) => sql.array(xs as never[]);
    const col = <T>(f: (a: FinishedAttempt) => T) => arr(batch.map(f));
    const next = batch.map(deliveryAfter);
    const ch = <T>(f: (c: (typeof changes)[number]) => T) => arr(changes.map(f));
    await sql`WITH attempts AS (
        INSERT INTO webhook_attempts (delivery_id, attempted_at, status, latency_ms, answer)
        SELECT u.id, u.at, u.status, u.latency, u.answer FROM unnest(${col((a) => a.delivery.id)}::bigint[], ${col((a) => a.result.at)}::bigint[],
          ${col((a) => a.result.status)}::int[], ${col((a) => a.result.latencyMs)}::int[],
          ${col((a) => a.result.answer)}::text[]) WITH ORDINALITY AS u(id, at, status, latency, answer, n)
        JOIN webhook_deliveries d ON d.id = u.id AND d.state <> 'dropped' ORDER BY u.n
      ), deliveries AS (
        UPDATE webhook_deliveries d SET state = u.state, next_attempt_at = u.next, last_status = u.status,
          finished_at = u.finished
        FROM unnest(${col((a) => a.delivery.id)}::bigint[], ${col((a) => a.delivery.attempt)}::int[],
          ${arr(next.map((n) => n.state))}::text[], ${arr(next.map((n) => n.nextAttemptAt))}::bigint[],
          ${col((a) => a.result.status)}::int[], ${arr(next.map((n) => n.finishedAt))}::bigint[])
          AS u(id, attempt, state, next, status, finished)
        WHERE d.id = u.id AND d.attempts = u.attempt AND d.state = 'pending'
      )
      UPDATE webhook_endpoints e SET
        failing_since = CASE WHEN c.clear THEN NULL WHEN c.restart THEN c.since
          ELSE coalesce(e.failing_since, c.since) END,
        enabled = e.enabled AND c.reason IS NULL,
        disabled_reason = coalesce(c.reason, e.disabled_reason),
        updated_at = coalesce(c.disabled_at, e.updated_at)
      FROM unnest(${ch((c) => c.endpointId)}::uuid[], ${ch((c) => c.failing?.clear === true)}::bool[],
        ${ch((c) => c.failing?.clear === false && c.failing.restart)}::bool[],
        ${ch((c) => (c.failing?.clear === false ? c.failing.since : null))}::bigint[],
        ${ch((c) => c.disable?.reason ?? null)}::text[], ${ch((c) => c.disable?.at ?? null)}::bigint[])
        AS c(id, clear, restart, since, reason, disabled_at)
      WHERE e.id = c.id AND NOT (c.clear AND e.failing_since IS NULL AND c.reason IS NULL)`;
  }

  async record(delivery: ClaimedDelivery, result: AttemptResult, outcome: AttemptOutcome): Promise<void> {
    await this.recordAttempts([{ delivery, result, outcome }]);
  }

  async release(deliveries: readonly ClaimedDelivery[], now: number): Promise<void> {
    if (deliveries.length === 0) return;
    const ids = this.sql.array(deliveries.map((d) => d.id));
    const attempts = this.sql.array(deliveries.map((d) => d.attempt));
    await this.sql`UPDATE webhook_deliveries d SET attempts = d.attempts - 1, next_attempt_at = ${now}
      FROM unnest(${ids}::bigint[], ${attempts}::int[]) AS u(id, attempt)
      WHERE d.id = u.id AND d.attempts = u.attempt AND d.state = 'pending'`;
  }

  private async owns(owner: EndpointOwner, endpointId: string): Promise<number | null> {
    const team = ownerTeam(owner);
    const [row] = await this.sql<{ team_id: number }[]>`SELECT team_id FROM webhook_endpoints
      WHERE id = ${endpointId} AND (${team}::bigint IS NULL OR team_id = ${team}::bigint)`;
    return row?.team_id ?? null;
  }

  async deliveries(
    owner: EndpointOwner,
    endpointId: string,
    limit: number,
  ): Promise<DeliveryRecord[] | null> {
    if ((await this.owns(owner, endpointId)) === null) return null;
    // One snapshot for both reads: a batch recorded between them would show a delivery still
    // pending beside the attempt that delivered it.
    return (await this.sql.begin(SNAPSHOT, async (tx) => {
      const rows = await tx<DeliveryRow[]>`SELECT ${tx.unsafe(DELIVERY_COLUMNS)} FROM webhook_deliveries
        WHERE endpoint_id = ${endpointId} ORDER BY id DESC LIMIT ${limit}`;
      const attempts = await tx<AttemptRow[]>`SELECT ${tx.unsafe(ATTEMPT_COLUMNS)} FROM webhook_attempts
        WHERE delivery_id = ANY(${tx.array(rows.map((r) => r.id))}::bigint[]) ORDER BY id`;
      return toDeliveryRecords([...rows], [...attempts]);
    })) as DeliveryRecord[];
  }

  async deliveryPage(
    owner: EndpointOwner,
    endpointId: string,
    q: { state: DeliveryState | null; before: number | null; limit: number },
  ): Promise<DeliveryPage | null> {
    if ((await this.owns(owner, endpointId)) === null) return null;
    // One snapshot for both reads (as `deliveries`); one more than asked: whether a next page exists.
    return (await this.sql.begin(SNAPSHOT, async (tx) => {
      const rows = await tx<DeliveryRow[]>`SELECT ${tx.unsafe(DELIVERY_COLUMNS)}
        FROM webhook_deliveries WHERE endpoint_id = ${endpointId}
          AND (${q.state}::text IS NULL OR state = ${q.state}::text)
          AND (${q.before}::bigint IS NULL OR id < ${q.before}::bigint)
        ORDER BY id DESC LIMIT ${q.limit + 1}`;
      const shown = rows.slice(0, q.limit);
      const attempts = await tx<AttemptRow[]>`SELECT ${tx.unsafe(ATTEMPT_COLUMNS)}
        FROM webhook_attempts WHERE delivery_id = ANY(${tx.array(shown.map((r) => r.id))}::bigint[])
        ORDER BY id`;
      const next = rows.length > q.limit ? (shown.at(-1)?.id ?? null) : null;
      return { deliveries: toDeliveryRecords(shown, [...attempts]), next };
    })) as DeliveryPage;
  }

  async replay(owner: EndpointOwner, deliveryId: number, now: number): Promise<boolean> {
    const team = ownerTeam(owner);
    const rows = await this.sql`UPDATE webhook_deliveries SET state = 'pending', attempts = 0,
        next_attempt_at = ${now}, finished_at = NULL
      WHERE id = ${deliveryId} AND state <> 'dropped' AND endpoint_id IN (SELECT id FROM webhook_endpoints
        WHERE ${team}::bigint IS NULL OR team_id = ${team}::bigint) RETURNING id`;
    return rows.length === 1;
  }

  async replayFailed(owner: EndpointOwner, endpointId: string, since: number, now: number): Promise<number> {
    if ((await this.owns(owner, endpointId)) === null) return 0;
    const rows = await this.sql`UPDATE webhook_deliveries SET state = 'pending', attempts = 0,
        next_attempt_at = ${now}, finished_at = NULL
      WHERE endpoint_id = ${endpointId} AND state = 'failed' AND created_at >= ${since} RETURNING id`;
    return rows.length;
  }

  async sendTest(owner: EndpointOwner, endpointId: string, now: number): Promise<string | null> {
    const team = await this.owns(owner, endpointId);
    if (team === null) return null;
    const id = uuid7(now);
    const payload = testPayload(endpointId, now);
    // The test event in the log (dispatched: its one delivery is written with it) and its delivery.
    await this
      .sql`WITH e AS (INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at, dispatched_at, body)
        VALUES (${id}, ${team}, 'webhook.test', NULL, ${now}, ${now}, ${payload}))
      INSERT INTO webhook_deliveries (event_id, endpoint_id, team_id, type, payload, created_at, state,
        attempts, next_attempt_at)
      VALUES (${id}, ${endpointId}, ${team}, 'webhook.test', ${payload}, ${now}, 'pending', 0, ${now})`;
    return id;
  }

  async expire(before: number, now: number, eventsBefore = before): Promise<number> {
    return (await this.sql.begin(async (tx) => {
      await tx`UPDATE webhook_deliveries SET state = 'failed', next_attempt_at = NULL, finished_at = ${now}
        WHERE state = 'pending' AND attempts >= ${MAX_ATTEMPTS} AND next_attempt_at <= ${now}`;
      await tx`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries
        WHERE state IN ('pending', 'failed') AND created_at < ${before})`;
      const dropped = await tx`UPDATE webhook_deliveries SET state = 'dropped', payload = NULL,
          next_attempt_at = NULL, finished_at = ${now}
        WHERE state IN ('pending', 'failed') AND created_at < ${before} RETURNING id`;
      await tx`DELETE FROM webhook_deliveries WHERE state = 'delivered' AND finished_at < ${before}`;
      // The event log's retention (as on SQLite, deliveries.ts PRUNED): per team a prefix of the log,
      // up to its first old event not dispatched or still needed by a pending delivery; each
      // team's horizon (the highest (txid, seq) pruned) first, then the events.
      const pruned = tx`WITH blocked AS MATERIALIZED (SELECT DISTINCT ON (b.team_id) b.team_id, b.txid, b.seq
          FROM webhook_events b WHERE b.created_at < ${eventsBefore} AND (b.dispatched_at IS NULL OR EXISTS
            (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = b.id AND d.state = 'pending'))
          ORDER BY b.team_id, b.txid, b.seq),
        pruned AS MATERIALIZED (SELECT e.team_id, e.txid, e.seq FROM webhook_events e
          LEFT JOIN blocked k ON k.team_id = e.team_id
          WHERE e.created_at < ${eventsBefore} AND (k.team_id IS NULL OR (e.txid, e.seq) < (k.txid, k.seq)))`;
      await tx`${pruned} INSERT INTO event_horizons (team_id, txid, seq)
        SELECT DISTINCT ON (team_id) team_id, txid, seq FROM pruned ORDER BY team_id, txid DESC, seq DESC
        ON CONFLICT (team_id) DO UPDATE SET txid = EXCLUDED.txid, seq = EXCLUDED.seq
        WHERE (EXCLUDED.txid, EXCLUDED.seq) > (event_horizons.txid, event_horizons.seq)`;
      await tx`${pruned} DELETE FROM webhook_events WHERE seq IN (SELECT seq FROM pruned)`;
      return dropped.length;
    })) as number;
  }

  async backlog(): Promise<WebhookBacklog> {
    const [row] = await this.sql<{ undispatched: number; pending: number; oldest: number | null }[]>`
      SELECT (SELECT count(*)::int FROM webhook_events WHERE dispatched_at IS NULL) AS undispatched,
        (SELECT count(*)::int FROM webhook_deliveries WHERE state = 'pending') AS pending,
        LEAST((SELECT min(created_at) FROM webhook_events WHERE dispatched_at IS NULL),
          (SELECT min(created_at) FROM webhook_deliveries WHERE state = 'pending')) AS oldest`;
    return {
      undispatched: row?.undispatched ?? 0,
      pending: row?.pending ?? 0,
      oldestAt: row?.oldest ?? null,
    };
  }
}
