import type { Sql, TransactionSql } from 'postgres';
import type {
  ErasureCandidate,
  ErasureOrder,
  ErasureReceipt,
  ErasureStore,
  Suppression,
} from '../../privacy/erasure.port.js';
import { erasureAuditEntry } from '../../privacy/erasure-audit.js';
import { uuid7s } from '../../shared/uuid7.js';
import {
  erasureSource,
  noCounts,
  RECEIPT_COLUMNS,
  type ReceiptRow,
  receiptValues,
  type SuppressionRow,
  toReceipt,
  toSuppression,
} from '../erasure-rows.js';
import { insertAudit } from './audit.js';
import type { PostgresLastLeads } from './last-leads.js';
import { containsPattern } from './search.js';
import { textFieldIndex } from './text.js';

/** This transaction's id, as leads.txid holds it: the erased lead's new place in the feed. */
const THIS_TXID = 'pg_current_xact_id()::text::bigint';

/** The tables an erasure deletes from or rewrites: VACUUMed after it (docs/privacy.md "Physically gone"). */
export const ERASURE_TABLES = [
  'leads',
  'webhook_events',
  'webhook_deliveries',
  'webhook_attempts',
  'idempotency_keys',
];

/** How long `reclaim` waits for erasures to stop coming before its VACUUM starts, and at most. */
export const RECLAIM_QUIET_MS = 250;
const RECLAIM_WAIT_MAX_MS = 5_000;
/** The reclaim VACUUM's pacing: autovacuum's defaults (PostgreSQL 12 and later). */
const RECLAIM_COST_DELAY_MS = 2;
const RECLAIM_COST_LIMIT = 200;

/** A VACUUM that waits to start: `nudge` restarts its quiet period, `now` ends it. */
interface QueuedVacuum {
  done: Promise<void>;
  nudge(): void;
  now(): void;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * PostgreSQL's text form of an array of numbers or lowercase UUIDs (`{1,2,3}`), passed as one
 * text parameter and cast (`::bigint[]`, `::uuid[]`): none of these values needs quoting, so
 * this skips the driver's quoting and escaping of each element.
 */
const arrayLiteral = (xs: readonly (number | string)[]): string => `{${xs.join(',')}}`;

/**
 * Erasure on PostgreSQL (docs/privacy.md "Erasure"): one transaction on the primary wipes each
 * lead to a tombstone (its text columns too: the trigram index has nothing of it once VACUUM
 * has removed the old row version) and deletes every other row that holds it; `reclaim` VACUUMs
 * the touched tables, which cannot run inside a transaction.
 */
export class PostgresErasureStore implements ErasureStore {
  /** The VACUUM running after an erasure, and the one queued behind it (`reclaim`). */
  private running: Promise<void> | null = null;
  private queued: QueuedVacuum | null = null;

  /** `lastLeads`: told of every erasure here, before it is answered (last-leads.ts). */
  constructor(
    private readonly sql: Sql,
    private readonly lastLeads: PostgresLastLeads | null = null,
  ) {}

  async candidates(teamId: number | null, foldedEmail: string): Promise<ErasureCandidate[]> {
    const pattern = containsPattern(foldedEmail);
    const email = textFieldIndex('email');
    const rows = await this.sql<{ team_id: number; uuid: string; fields: string }[]>`
      SELECT l.team_id, l.uuid::text AS uuid, l.fields FROM leads l
      WHERE l.search LIKE ${pattern} AND l.text_fields[${email}] LIKE ${pattern} AND l.erased_at IS NULL
        AND (${teamId}::bigint IS NULL OR l.team_id = ${teamId})`;
    return rows.map((r) => ({ teamId: Number(r.team_id), uuid: r.uuid, fields: r.fields }));
  }

  /**
   * Which of `uuids` are live leads of the team. Counted first: when every one is (an erasure's
   * usual case), no row comes back to be parsed.
   */
  async existing(teamId: number, uuids: string[]): Promise<string[]> {
    const given = uuids.filter((u) => UUID.test(u));
    const valid = [...new Set(given.map((u) => u.toLowerCase()))];
    if (valid.length === 0) return [];
    const ids = arrayLiteral(valid);
    const [all] = await this.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM leads
      WHERE team_id = ${teamId} AND uuid = ANY(${ids}::uuid[]) AND erased_at IS NULL`;
    if (all!.n === valid.length) return given;
    const rows = await this.sql<{ uuid: string }[]>`SELECT uuid::text AS uuid FROM leads
      WHERE team_id = ${teamId} AND uuid = ANY(${ids}::uuid[]) AND erased_at IS NULL`;
    const found = new Set(rows.map((r) => r.uuid));
    return uuids.filter((u) => found.has(u.toLowerCase()));
  }

  async erase(o: ErasureOrder): Promise<ErasureReceipt> {
    try {
      return (await this.sql.begin((tx) => this.eraseIn(tx, o))) as ErasureReceipt;
    } finally {
      this.lastLeads?.changed(o.teamId ?? undefined);
    }
  }

  /**
   * Set-based: the leads asked for and (recursively) those merged into them, locked in seq
   * order, then one statement per table over all of them — not per lead: round trips dominate.
   * The locked leads come back as one row — their counts, and their keys as array literals that
   * the next statements take as they are (the three aggregates read `locked` in one scan, in seq
   * order: their i-th elements are one lead's) — not a row each: a 1,000-lead erasure's rows, and
   * their arrays serialised again for each statement, were most of what it allocated in the
   * server (bench/RESULTS.md "Erasure under load").
   */
  private async eraseIn(tx: TransactionSql, o: ErasureOrder): Promise<ErasureReceipt> {
    const counts = noCounts();
    const asked = o.leads.filter((l) => UUID.test(l.uuid));
    const due = o.dueBefore ?? null;
    const [found] =
      asked.length === 0
        ? []
        : await tx<
            { leads: number; merged: number; texts: number; teams: string; seqs: string; uuids: string }[]
          >`
      WITH RECURSIVE target(team_id, uuid, asked) AS (
          SELECT l.team_id, l.uuid, true FROM leads l
            JOIN unnest(${arrayLiteral(asked.map((l) => l.teamId))}::bigint[],
              ${arrayLiteral(asked.map((l) => l.uuid.toLowerCase()))}::uuid[]) AS a(team_id, uuid)
              ON l.team_id = a.team_id AND l.uuid = a.uuid
          WHERE l.erased_at IS NULL AND (${due}::bigint IS NULL
            OR (l.epoch < ${due} AND (l.changed_at IS NULL OR l.changed_at < ${due})))
        UNION
          SELECT l.team_id, l.uuid, false FROM leads l JOIN target t ON l.merged_into = t.uuid AND l.team_id = t.team_id
          WHERE l.erased_at IS NULL),
      targets AS (SELECT team_id, uuid, bool_or(asked) AS asked FROM target GROUP BY team_id, uuid),
      locked AS MATERIALIZED (
        SELECT l.team_id, l.seq, l.uuid, l.search <> '' AS had_text, t.asked FROM leads l
          JOIN targets t ON l.team_id = t.team_id AND l.uuid = t.uuid
        WHERE l.erased_at IS NULL ORDER BY l.seq FOR UPDATE OF l)
      SELECT count(*)::int AS leads, (count(*) FILTER (WHERE NOT asked))::int AS merged,
        (count(*) FILTER (WHERE had_text))::int AS texts,
        coalesce(array_agg(team_id), '{}')::text AS teams, coalesce(array_agg(seq), '{}')::text AS seqs,
        coalesce(array_agg(uuid), '{}')::text AS uuids
      FROM locked`;
    const source = erasureSource(o.requestedBy);
    if (found !== undefined && found.leads > 0) {
      counts.leads = found.leads;
      counts.mergedLeads = found.merged;
      counts.searchRows = found.texts;
      const { teams, seqs } = found;
      // A fresh fragment for each statement: the events of the erased leads (`e`).
      const ofLeads = () => tx`JOIN unnest(${teams}::bigint[], ${seqs}::bigint[]) AS u(team_id, seq)
        ON e.team_id = u.team_id AND e.lead_seq = u.seq`;
      const attempts = await tx`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT d.id
        FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id ${ofLeads()})`;
      counts.webhookAttempts = attempts.count;
      const deliveries = await tx`DELETE FROM webhook_deliveries WHERE event_id IN (SELECT e.id
        FROM webhook_events e ${ofLeads()})`;
      counts.webhookDeliveries = deliveries.count;
      const events =
        await tx`DELETE FROM webhook_events WHERE id IN (SELECT e.id FROM webhook_events e ${ofLeads()})`;
      counts.webhookEvents = events.count;
      await tx`UPDATE leads l SET fields = '{}', first_name = NULL, last_name = NULL, lat = NULL, long = NULL,
          user_pid = '', location_shared = false, has_email = false, text_fields = '{}', search = '',
          erased_at = ${o.at}, erasure_id = ${o.id}, txid = ${tx.unsafe(THIS_TXID)}, version = l.version + 1,
          changed_via = ${source}, changed_at = ${o.at}
        FROM unnest(${teams}::bigint[], ${seqs}::bigint[]) AS u(team_id, seq)
        WHERE l.team_id = u.team_id AND l.seq = u.seq`;
      await tx`INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at)
        SELECT u.id, u.team_id, 'lead.erased', u.seq, ${o.at}
        FROM unnest(${arrayLiteral(uuid7s(found.leads, o.at))}::uuid[], ${teams}::bigint[], ${seqs}::bigint[])
          AS u(id, team_id, seq)`;
      const claims = await tx`DELETE FROM idempotency_keys WHERE lead_uuid = ANY(${found.uuids}::uuid[])`;
      counts.idempotencyKeys += claims.count;
    }
    const receipt: ErasureReceipt = {
      id: o.id,
      teamId: o.teamId,
      requestedBy: o.requestedBy,
      requestedAt: o.at,
      emailHash: o.emailHash,
      leadIds: o.leadIds,
      counts,
    };
    await tx.unsafe(
      `INSERT INTO erasures (${RECEIPT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      receiptValues(receipt) as never[],
    );
    if (o.suppress !== null) {
      await tx`INSERT INTO suppressions (team_id, email_hash, created_at, erasure_id)
        VALUES (${o.suppress.teamId}, ${o.suppress.emailHash}, ${o.at}, ${o.id}) ON CONFLICT DO NOTHING`;
    }
    if (o.actor !== null) await insertAudit(tx, erasureAuditEntry(receipt, o.actor));
    return receipt;
  }

  async receipt(id: string): Promise<ErasureReceipt | null> {
    if (!UUID.test(id)) return null;
    const [row] = await this.sql.unsafe<ReceiptRow[]>(
      `SELECT ${RECEIPT_COLUMNS.replace(/^id,/, 'id::text AS id,')} FROM erasures WHERE id = $1`,
      [id],
    );
    return row === undefined ? null : toReceipt(row);
  }

  /**
   * VACUUM of the tables an erasure touched: the old row versions (the person's values, their
   * search text) become free space and leave the indexes. Not in a transaction (VACUUM cannot).
   *
   * One VACUUM at a time per store, and at most one more queued. The queued one waits until
   * reclaims stop coming for RECLAIM_QUIET_MS (at most RECLAIM_WAIT_MAX_MS from the first), so
   * erasures back to back share it: it starts after their erasures committed, so it covers them
   * all. Each VACUUM of a 1M-lead store reads every index of `leads` and `webhook_events` whole;
   * ten in a row took the probes' CPU for seconds, and each waiting for another's lock held a pool
   * connection (bench/RESULTS.md "Erasure under load").
   */
  reclaim(): Promise<void> {
    const queued = this.queued ?? this.queue();
    queued.nudge();
    return queued.done;
  }

  /** Runs the queued VACUUM now, and waits for the one running: before the pool closes. */
  async settle(): Promise<void> {
    this.queued?.now();
    await Promise.allSettled([this.queued?.done, this.running]);
  }

  private queue(): QueuedVacuum {
    const firstAsked = Date.now();
    let timer: NodeJS.Timeout | undefined;
    let start!: () => void;
    const quiet = new Promise<void>((resolve) => {
      start = resolve;
    });
    const done = Promise.all([quiet, this.running]).then(() => {
      // A reclaim asked from here on may follow an erasure this VACUUM does not cover: a new one.
      this.queued = null;
      const run = this.vacuum();
      // Only for the order of VACUUMs (never rejects): the callers of `reclaim` get `run`'s failure.
      const running: Promise<void> = run
        .catch(() => {})
        .finally(() => {
          if (this.running === running) this.running = null;
        });
      this.running = running;
      return run;
    });
    const queued: QueuedVacuum = {
      done,
      nudge: () => {
        clearTimeout(timer);
        const left = firstAsked + RECLAIM_WAIT_MAX_MS - Date.now();
        timer = setTimeout(start, Math.max(0, Math.min(RECLAIM_QUIET_MS, left)));
      },
      now: () => {
        clearTimeout(timer);
        start();
      },
    };
    this.queued = queued;
    return queued;
  }

  /**
   * The VACUUM itself, paced as autovacuum paces its own (`vacuum_cost_delay` 2 ms per
   * `vacuum_cost_limit` 200 of page work; a manual VACUUM runs unpaced by default): it leaves
   * the CPU to the queries it runs beside, for a VACUUM that takes longer — so without the
   * serving pool's statement timeout, which a paced VACUUM of a large store could outlast.
   */
  private async vacuum(): Promise<void> {
    const conn = await this.sql.reserve();
    try {
      await conn.unsafe(
        `SET vacuum_cost_delay = ${RECLAIM_COST_DELAY_MS}; SET vacuum_cost_limit = ${RECLAIM_COST_LIMIT}; SET statement_timeout = 0`,
      );
      await conn.unsafe(`VACUUM ${ERASURE_TABLES.join(', ')}`);
    } finally {
      await conn
        .unsafe('RESET vacuum_cost_delay; RESET vacuum_cost_limit; RESET statement_timeout')
        .catch(() => {});
      conn.release();
    }
  }

  async suppressed(teamId: number, emailHash: string): Promise<boolean> {
    const rows = await this.sql`SELECT 1 FROM suppressions
      WHERE email_hash = ${emailHash} AND (team_id = ${teamId} OR team_id IS NULL) LIMIT 1`;
    return rows.length > 0;
  }

  async suppressions(teamId: number | null): Promise<Suppression[]> {
    const rows = await this.sql<SuppressionRow[]>`SELECT team_id, email_hash, created_at,
        erasure_id::text AS erasure_id FROM suppressions
      WHERE ${teamId}::bigint IS NULL OR team_id = ${teamId} OR team_id IS NULL ORDER BY created_at DESC`;
    return rows.map(toSuppression);
  }

  async unsuppress(teamId: number | null, emailHash: string): Promise<boolean> {
    const rows = await this.sql`DELETE FROM suppressions
      WHERE coalesce(team_id, -1) = ${teamId ?? -1} AND email_hash = ${emailHash}`;
    return rows.count > 0;
  }
}
