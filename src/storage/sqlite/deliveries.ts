// Longer than the ~250 lines most files keep to: the DeliveryStore port on SQLite, one method per
// outbox step (dispatch, claim, record, list, replay); split by method it would scatter statements
// that share one transaction discipline.
import type Database from 'better-sqlite3';
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
  EVENT_JOINS,
  type EventRow,
  ownerTeam,
  toEndpoint,
  toWebhookEvent,
} from '../endpoint-rows.js';
import { INSERT_TEAM_EVENT } from './webhooks.js';

/**
 * The events the log's retention removes (`@before`: made before): per team, a prefix of the log — the
 * old events before the team's first old one that is not dispatched yet or that a pending delivery
 * still needs. So no event is kept behind the horizon (the highest position pruned), and a cursor
 * at or after it has missed nothing.
 */
const PRUNED = `WITH blocked AS MATERIALIZED (SELECT b.team_id, min(b.seq) AS seq FROM webhook_events b
    WHERE b.created_at < @before AND (b.dispatched_at IS NULL OR EXISTS (SELECT 1 FROM webhook_deliveries d
      WHERE d.event_id = b.id AND d.state = 'pending'))
    GROUP BY b.team_id),
  pruned AS MATERIALIZED (SELECT e.seq, e.team_id FROM webhook_events e
    WHERE e.created_at < @before AND e.seq < coalesce((SELECT k.seq FROM blocked k WHERE k.team_id = e.team_id), 9223372036854775807))`;

/**
 * The outbox's events not yet dispatched, oldest first, through the partial index of them —
 * named, because statistics taken while a backlog waited (an ANALYZE after an import of a million
 * leads: the index as large as the table) make the planner scan the table in seq order instead,
 * and once the backlog is half dispatched every batch walks the dispatched half first: 60 ms
 * a batch, on the serving thread, at 1M events (test/storage/sqlite-plans.test.ts).
 */
export const WAITING_EVENTS = `SELECT ${EVENT_COLUMNS} FROM webhook_events e INDEXED BY webhook_events_waiting
  ${EVENT_JOINS} WHERE e.dispatched_at IS NULL ORDER BY e.seq LIMIT ?`;

/**
 * How many events wait, and since when (the outbox depth gauge reads it at every /metrics
 * scrape): through the same partial index, for the same reason — with a backlog's statistics the
 * planner counted by scanning every event the store holds, tens of milliseconds of the serving
 * thread a scrape at 1M with nothing waiting.
 */
export const UNDISPATCHED = `SELECT count(*) AS n, min(created_at) AS oldest
  FROM webhook_events INDEXED BY webhook_events_waiting WHERE dispatched_at IS NULL`;

/** The owner may see the endpoint: (endpoint id, team, team); team NULL for the operator. */
const OWNED_ENDPOINT = 'SELECT id FROM webhook_endpoints WHERE id = ? AND (? IS NULL OR team_id = ?)';

/**
 * Deliveries on the embedded store. Every step is one IMMEDIATE transaction, so a claim is
 * atomic across processes sharing the file: each delivery is leased to one claimer at a time.
 */
export class SqliteDeliveryStore implements DeliveryStore {
  /** ~0.7 ms a batch on the serving thread at 1M events (bench/dispatch-batch.ts); 500 took ~3 ms. */
  readonly dispatchBatch = 100;
  private readonly s;
  private readonly tx;

  /**
   * `erasing`: while an erasure runs on the store's erasure thread, a promise of its end (else
   * null); the delivery steps wait on it (`idle`) rather than for its write lock in busy_timeout,
   * which would hold the serving thread (erasure-thread.ts).
   */
  constructor(
    private readonly db: Database.Database,
    private readonly erasing: () => Promise<void> | null = () => null,
  ) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      waiting: p(WAITING_EVENTS).raw(true),
      // The outbox depth gauge's two counts (`backlog`), read at every /metrics scrape.
      undispatched: p(UNDISPATCHED),
      pending: p(
        "SELECT count(*) AS n, min(created_at) AS oldest FROM webhook_deliveries WHERE state = 'pending'",
      ),
      endpointsOf: p(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE team_id = ? AND enabled = 1`),
      subteamsOf: p(
        'SELECT subteam_id FROM subteam_members WHERE team_id = ? AND member_id = ? AND is_member = 1',
      ).pluck(),
      addDelivery: p(`INSERT OR IGNORE INTO webhook_deliveries (event_id, endpoint_id, team_id, type, payload,
        created_at, state, attempts, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?)`),
      dispatched: p('UPDATE webhook_events SET dispatched_at = ? WHERE seq = ?'),
      // The teams with pending deliveries, one index probe each (a skip scan of the team index).
      teamsPending: p(`WITH RECURSIVE t(team) AS (
          SELECT min(team_id) FROM webhook_deliveries WHERE state = 'pending'
          UNION ALL
          SELECT (SELECT min(team_id) FROM webhook_deliveries WHERE state = 'pending' AND team_id > t.team)
          FROM t WHERE t.team IS NOT NULL)
        SELECT team FROM t WHERE team IS NOT NULL`).pluck(),
      dueOfTeam: p(`SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
        JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.team_id = ? AND d.state = 'pending' AND d.next_attempt_at <= ? AND d.attempts < ? AND e.enabled = 1
        ORDER BY d.next_attempt_at LIMIT ?`).raw(true),
      lease: p('UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ? WHERE id = ?'),
      claimed:
        p(`SELECT ${CLAIM_COLUMNS} FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.id = ?`),
      attempt: p(`INSERT INTO webhook_attempts (delivery_id, attempted_at, status, latency_ms, answer)
        SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = ? AND state <> 'dropped')`),
      finish:
        p(`UPDATE webhook_deliveries SET state = ?, next_attempt_at = ?, last_status = ?, finished_at = ?
        WHERE id = ? AND attempts = ? AND state = 'pending'`),
      release: p(
        "UPDATE webhook_deliveries SET attempts = attempts - 1, next_attempt_at = ? WHERE id = ? AND attempts = ? AND state = 'pending'",
      ),
      healthy: p(
        'UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL',
      ),
      failing: p('UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?) WHERE id = ?'),
      failingFrom: p('UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?'),
      disable: p(
        'UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ?',
      ),
      // Only an endpoint still enabled is announced: once, however many attempts disable it.
      live: p('SELECT team_id, url FROM webhook_endpoints WHERE id = ? AND enabled = 1'),
      teamEndpoints: p(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE team_id = ?`),
      owned: p(OWNED_ENDPOINT).pluck(),
      list: p(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY id DESC LIMIT ?`,
      ),
      page: p(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = ?
        AND (? IS NULL OR state = ?) AND (? IS NULL OR id < ?) ORDER BY id DESC LIMIT ?`),
      attemptsOf: p(`SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts WHERE delivery_id = ? ORDER BY id`),
      replay:
        p(`UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = ?, finished_at = NULL
        WHERE id = ? AND state <> 'dropped' AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE ? IS NULL OR team_id = ?)`),
      replayFailed:
        p(`UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = ?, finished_at = NULL
        WHERE endpoint_id = ? AND state = 'failed' AND created_at >= ?`),
      teamOf: p('SELECT team_id FROM webhook_endpoints WHERE id = ?').pluck(),
      teamEvent: p(INSERT_TEAM_EVENT),
      dropAttempts: p(`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries
        WHERE state IN ('pending', 'failed') AND created_at < ?)`),
      drop: p(`UPDATE webhook_deliveries SET state = 'dropped', payload = NULL, next_attempt_at = NULL, finished_at = ?
        WHERE state IN ('pending', 'failed') AND created_at < ?`),
      spent: p(`UPDATE webhook_deliveries SET state = 'failed', next_attempt_at = NULL, finished_at = ?
        WHERE state = 'pending' AND attempts >= ? AND next_attempt_at <= ?`),
      forgetDelivered: p("DELETE FROM webhook_deliveries WHERE state = 'delivered' AND finished_at < ?"),
      // The event log's retention: its horizon first (the highest position pruned, per team), then
      // the events. An event a pending delivery still needs is kept.
      horizon: p(`${PRUNED} INSERT INTO event_horizons (team_id, seq)
        SELECT team_id, max(seq) FROM pruned WHERE true GROUP BY team_id
        ON CONFLICT (team_id) DO UPDATE SET seq = max(seq, excluded.seq)`),
      prune: p(`${PRUNED} DELETE FROM webhook_events WHERE seq IN (SELECT seq FROM pruned)`),
    };
    // Each transaction function is built once: better-sqlite3's db.transaction() per call cost
    // about a seventh of the delivery loop's time (profile, bench/RESULTS.md).
    const tx = <A extends unknown[], R>(f: (...a: A) => R) => db.transaction(f).immediate;
    this.tx = {
      dispatch: tx((n: number, now: number) => {
        const events = (this.s.waiting.all(n) as EventRow[]).map(toWebhookEvent);
        const teams = [...new Set(events.map((e) => e.teamId))];
        const endpoints = teams.flatMap((t) => (this.s.endpointsOf.all(t) as EndpointRow[]).map(toEndpoint));
        const planned = planDeliveries(events, endpoints, (t, m) => this.s.subteamsOf.all(t, m) as number[]);
        for (const d of planned)
          this.s.addDelivery.run(d.eventId, d.endpointId, d.teamId, d.type, d.payload, d.createdAt, now);
        for (const e of events) this.s.dispatched.run(now, e.seq);
        return events.length;
      }),
      claim: tx((limit: number, now: number, share: TeamShare) => {
        const due: [number, number][] = [];
        for (const team of this.s.teamsPending.all() as number[]) {
          const allowance = Math.min(limit, share.perTeam - (share.held.get(team) ?? 0));
          if (allowance > 0)
            due.push(...(this.s.dueOfTeam.all(team, now, MAX_ATTEMPTS, allowance) as [number, number][]));
        }
        const ids = due
          .sort((a, b) => a[1] - b[1])
          .slice(0, limit)
          .map(([id]) => id);
        for (const id of ids) this.s.lease.run(now + CLAIM_LEASE_MS, id);
        return ids.map((id) => toClaimed(this.s.claimed.get(id) as ClaimRow));
      }),
      record: tx((batch: readonly FinishedAttempt[]): DisabledEndpoint[] => {
        const disabled: DisabledEndpoint[] = [];
        for (const a of batch) {
          const { delivery: d, result: r } = a;
          this.s.attempt.run(d.id, r.at, r.status, r.latencyMs, r.answer, d.id);
          const next = deliveryAfter(a);
          this.s.finish.run(next.state, next.nextAttemptAt, r.status, next.finishedAt, d.id, d.attempt);
        }
        for (const c of endpointChanges(batch)) {
          if (c.failing?.clear === true) this.s.healthy.run(c.endpointId);
          else if (c.failing?.restart === true) this.s.failingFrom.run(c.failing.since, c.endpointId);
          else if (c.failing !== null) this.s.failing.run(c.failing.since, c.endpointId);
          if (c.disable === null) continue;
          const row = this.s.live.get(c.endpointId) as { team_id: number; url: string } | undefined;
          this.s.disable.run(c.disable.reason, c.disable.at, c.endpointId);
          if (row === undefined) continue;
          const d: DisabledEndpoint = {
            endpointId: c.endpointId,
            teamId: row.team_id,
            url: row.url,
            ...c.disable,
          };
          const others = (this.s.teamEndpoints.all(d.teamId) as EndpointRow[]).map(toEndpoint);
          // The event in the log (dispatched: its deliveries are written with it), then its deliveries.
          const eventId = uuid7(d.at);
          this.s.teamEvent.run(
            eventId,
            d.teamId,
            'webhook.endpoint.disabled',
            d.at,
            d.at,
            endpointDisabledPayload(d, 'full'),
          );
          for (const n of disabledNotices(d, eventId, others))
            this.s.addDelivery.run(
              n.eventId,
              n.endpointId,
              n.teamId,
              n.type,
              n.payload,
              n.createdAt,
              n.createdAt,
            );
          disabled.push(d);
        }
        return disabled;
      }),
      // The test event in the log (dispatched: its one delivery is written with it) and its delivery.
      test: tx((endpointId: string, now: number) => {
        const id = uuid7(now);
        const team = this.s.teamOf.get(endpointId) as number;
        const payload = testPayload(endpointId, now);
        this.s.teamEvent.run(id, team, 'webhook.test', now, now, payload);
        this.s.addDelivery.run(id, endpointId, team, 'webhook.test', payload, now, now);
        return id;
      }),
      release: tx((deliveries: readonly ClaimedDelivery[], now: number) => {
        for (const d of deliveries) this.s.release.run(now, d.id, d.attempt);
      }),
      expire: tx((before: number, now: number, eventsBefore: number) => {
        this.s.spent.run(now, MAX_ATTEMPTS, now);
        this.s.dropAttempts.run(before);
        const dropped = this.s.drop.run(now, before).changes;
        this.s.forgetDelivered.run(before);
        this.s.horizon.run({ before: eventsBefore });
        this.s.prune.run({ before: eventsBefore });
        return dropped;
      }),
    };
  }

  /**
   * Waits while this connection is inside another transaction (an import in this process awaits
   * between its batches): delivery must never see, let alone send, what that one may roll back;
   * and while the erasure thread writes, without holding this thread.
   */
  private async idle(): Promise<void> {
    for (;;) {
      if (this.db.inTransaction) await new Promise((resolve) => setTimeout(resolve, 5));
      else {
        const end = this.erasing();
        if (end === null) return;
        await end;
      }
    }
  }

  async dispatch(limit: number, now: number): Promise<number> {
    await this.idle();
    return this.tx.dispatch(limit, now);
  }

  async claim(limit: number, now: number, share?: TeamShare): Promise<ClaimedDelivery[]> {
    await this.idle();
    return this.tx.claim(limit, now, share ?? { perTeam: limit, held: new Map() });
  }

  async recordAttempts(batch: readonly FinishedAttempt[]): Promise<DisabledEndpoint[]> {
    if (batch.length === 0) return [];
    await this.idle();
    return this.tx.record(batch);
  }

  async record(delivery: ClaimedDelivery, result: AttemptResult, outcome: AttemptOutcome): Promise<void> {
    await this.recordAttempts([{ delivery, result, outcome }]);
  }

  async release(deliveries: readonly ClaimedDelivery[], now: number): Promise<void> {
    if (deliveries.length === 0) return;
    await this.idle();
    this.tx.release(deliveries, now);
  }

  private owns(owner: EndpointOwner, endpointId: string): boolean {
    const team = ownerTeam(owner);
    return this.s.owned.get(endpointId, team, team) !== undefined;
  }

  async deliveries(
    owner: EndpointOwner,
    endpointId: string,
    limit: number,
  ): Promise<DeliveryRecord[] | null> {
    if (!this.owns(owner, endpointId)) return null;
    // One read transaction: another process's record between the reads would show a delivery
    // still pending beside the attempt that delivered it.
    return this.db.transaction(() => {
      const rows = this.s.list.all(endpointId, limit) as DeliveryRow[];
      const attempts = rows.flatMap((r) => this.s.attemptsOf.all(r.id) as AttemptRow[]);
      return toDeliveryRecords(rows, attempts);
    })();
  }

  async deliveryPage(
    owner: EndpointOwner,
    endpointId: string,
    q: { state: DeliveryState | null; before: number | null; limit: number },
  ): Promise<DeliveryPage | null> {
    if (!this.owns(owner, endpointId)) return null;
    // One read transaction (as `deliveries`); one more than asked: whether a next page exists.
    return this.db.transaction(() => {
      const rows = this.s.page.all(
        endpointId,
        q.state,
        q.state,
        q.before,
        q.before,
        q.limit + 1,
      ) as DeliveryRow[];
      const shown = rows.slice(0, q.limit);
      const attempts = shown.flatMap((r) => this.s.attemptsOf.all(r.id) as AttemptRow[]);
      const next = rows.length > q.limit ? (shown.at(-1)?.id ?? null) : null;
      return { deliveries: toDeliveryRecords(shown, attempts), next };
    })();
  }

  async replay(owner: EndpointOwner, deliveryId: number, now: number): Promise<boolean> {
    const team = ownerTeam(owner);
    return this.s.replay.run(now, deliveryId, team, team).changes === 1;
  }

  async replayFailed(owner: EndpointOwner, endpointId: string, since: number, now: number): Promise<number> {
    if (!this.owns(owner, endpointId)) return 0;
    return this.s.replayFailed.run(now, endpointId, since).changes;
  }

  async sendTest(owner: EndpointOwner, endpointId: string, now: number): Promise<string | null> {
    if (!this.owns(owner, endpointId)) return null;
    while (this.db.inTransaction) await new Promise((resolve) => setTimeout(resolve, 5));
    return this.tx.test(endpointId, now);
  }

  async expire(before: number, now: number, eventsBefore = before): Promise<number> {
    await this.idle();
    return this.tx.expire(before, now, eventsBefore);
  }

  async backlog(): Promise<WebhookBacklog> {
    const e = this.s.undispatched.get() as { n: number; oldest: number | null };
    const d = this.s.pending.get() as { n: number; oldest: number | null };
    const oldest = [e.oldest, d.oldest].filter((t): t is number => t !== null);
    return { undispatched: e.n, pending: d.n, oldestAt: oldest.length === 0 ? null : Math.min(...oldest) };
  }
}
