import type Database from 'better-sqlite3';
import { trigrams } from '../../leads/text.js';
import type {
  ErasureCandidate,
  ErasureOrder,
  ErasureReceipt,
  ErasureStore,
  Suppression,
} from '../../privacy/erasure.port.js';
import { erasureAuditEntry } from '../../privacy/erasure-audit.js';
import { uuid7 } from '../../shared/uuid7.js';
import { auditValues } from '../audit-rows.js';
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
import { INSERT_AUDIT } from './audit.js';
import { FeedClock } from './changes.js';
import type { ErasureThread } from './erasure-thread.js';
import { DELETE_LEAD_TEXT } from './lead-writes.js';

/** An FTS5 string: one trigram. */
const quoted = (trigram: string): string => `"${trigram.replaceAll('"', '""')}"`;

/**
 * Erasure on SQLite (docs/privacy.md "Erasure"): one IMMEDIATE transaction wipes each lead to a
 * tombstone and deletes every other row that holds it — on the store's erasure thread, with a
 * connection of its own (erasure-thread.ts), so the serving thread keeps answering meanwhile. `PRAGMA secure_delete` (store.ts) zeroes
 * what the transaction frees, lead_text's `secure-delete` option (migration 12) leaves no
 * trigram behind, and `reclaim` truncates the WAL, so the old pages are nowhere in the files.
 */
export class SqliteErasureStore implements ErasureStore {
  private readonly s;
  private readonly clock: FeedClock;
  private readonly eraseTx;

  /** `thread`: where erasures and reclaims run (erasure-thread.ts); none: on this thread. */
  constructor(
    private readonly db: Database.Database,
    private readonly thread: ErasureThread | null = null,
  ) {
    this.clock = new FeedClock(db);
    const candidates = (team: boolean) => `SELECT l.team_id AS teamId, l.uuid, l.fields FROM leads l
      WHERE l.seq IN (SELECT rowid FROM lead_text WHERE lead_text MATCH ?) AND l.erased_at IS NULL
      ${team ? 'AND l.team_id = ?' : ''}`;
    this.s = {
      candidatesOfTeam: db.prepare(candidates(true)),
      candidatesAll: db.prepare(candidates(false)),
      // No word in the e-mail (no trigram to look for): every lead with an e-mail is a candidate.
      withEmailOfTeam: db.prepare(`SELECT l.team_id AS teamId, l.uuid, l.fields FROM leads l
        WHERE l.team_id = ? AND l.has_email = 1 AND l.erased_at IS NULL`),
      withEmailAll: db.prepare(`SELECT l.team_id AS teamId, l.uuid, l.fields FROM leads l
        WHERE l.has_email = 1 AND l.erased_at IS NULL`),
      live: db.prepare('SELECT seq FROM leads WHERE team_id = ? AND uuid = ? AND erased_at IS NULL').pluck(),
      liveDue: db
        .prepare(`SELECT seq FROM leads WHERE team_id = ? AND uuid = ? AND erased_at IS NULL
          AND epoch < ? AND (changed_at IS NULL OR changed_at < ?)`)
        .pluck(),
      mergedInto: db.prepare(
        'SELECT seq, uuid FROM leads WHERE merged_into = ? AND team_id = ? AND erased_at IS NULL',
      ),
      attempts: db.prepare(`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT d.id
        FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE e.team_id = ? AND e.lead_seq = ?)`),
      deliveries: db.prepare(`DELETE FROM webhook_deliveries WHERE event_id IN (SELECT e.id
        FROM webhook_events e WHERE e.team_id = ? AND e.lead_seq = ?)`),
      events: db.prepare('DELETE FROM webhook_events WHERE team_id = ? AND lead_seq = ?'),
      textRow: db.prepare('SELECT count(*) FROM lead_text WHERE rowid = ?').pluck(),
      deleteText: db.prepare(DELETE_LEAD_TEXT),
      wipe: db.prepare(`UPDATE leads SET fields = '{}', first_name = NULL, last_name = NULL, lat = NULL,
          long = NULL, user_pid = '', location_shared = 0, has_email = 0, erased_at = ?, erasure_id = ?,
          pos = ?, version = version + 1, changed_via = ?, changed_at = ?
        WHERE seq = ?`),
      erasedEvent: db.prepare(`INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at)
        VALUES (?, ?, 'lead.erased', ?, ?)`),
      claims: db.prepare('DELETE FROM idempotency_keys WHERE lead_uuid IN (SELECT value FROM json_each(?))'),
      addReceipt: db.prepare(
        `INSERT INTO erasures (${RECEIPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      audit: db.prepare(INSERT_AUDIT),
      receipt: db.prepare(`SELECT ${RECEIPT_COLUMNS} FROM erasures WHERE id = ?`),
      suppress: db.prepare(`INSERT INTO suppressions (team_id, email_hash, created_at, erasure_id)
        VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`),
      suppressed: db
        .prepare(
          'SELECT 1 FROM suppressions WHERE email_hash = ? AND (team_id = ? OR team_id IS NULL) LIMIT 1',
        )
        .pluck(),
      suppressionsOfTeam: db.prepare(`SELECT team_id, email_hash, created_at, erasure_id FROM suppressions
        WHERE team_id = ? OR team_id IS NULL ORDER BY created_at DESC`),
      suppressionsAll: db.prepare(
        'SELECT team_id, email_hash, created_at, erasure_id FROM suppressions ORDER BY created_at DESC',
      ),
      unsuppress: db.prepare('DELETE FROM suppressions WHERE coalesce(team_id, -1) = ? AND email_hash = ?'),
    };
    this.eraseTx = db.transaction((o: ErasureOrder) => this.eraseNow(o)).immediate;
  }

  async candidates(teamId: number | null, foldedEmail: string): Promise<ErasureCandidate[]> {
    return this.thread === null
      ? this.candidatesHere(teamId, foldedEmail)
      : this.thread.candidates(teamId, foldedEmail);
  }

  /** The candidates, read on this connection and thread. */
  candidatesHere(teamId: number | null, foldedEmail: string): ErasureCandidate[] {
    const every = [...new Set(trigrams(foldedEmail))].map(quoted).join(' AND ');
    if (every === '') {
      return (
        teamId === null ? this.s.withEmailAll.all() : this.s.withEmailOfTeam.all(teamId)
      ) as ErasureCandidate[];
    }
    const match = `{email} : (${every})`;
    return (
      teamId === null ? this.s.candidatesAll.all(match) : this.s.candidatesOfTeam.all(match, teamId)
    ) as ErasureCandidate[];
  }

  async existing(teamId: number, uuids: string[]): Promise<string[]> {
    return this.thread === null ? this.existingHere(teamId, uuids) : this.thread.existing(teamId, uuids);
  }

  /** The named leads that are live, read on this connection and thread. */
  existingHere(teamId: number, uuids: string[]): string[] {
    return uuids.filter((u) => this.s.live.get(teamId, u.toLowerCase()) !== undefined);
  }

  async erase(order: ErasureOrder): Promise<ErasureReceipt> {
    return this.thread === null ? this.eraseHere(order) : this.thread.erase(order);
  }

  /** The erasure's transaction, on this connection and thread. */
  eraseHere(order: ErasureOrder): ErasureReceipt {
    return this.eraseTx(order);
  }

  private eraseNow(o: ErasureOrder): ErasureReceipt {
    const counts = noCounts();
    const erased = new Set<number>();
    const uuids: string[] = [];
    // The leads asked for, then (breadth first) every lead merged into one of them.
    const queue: { seq: number; teamId: number; uuid: string; merged: boolean }[] = [];
    for (const l of o.leads) {
      const uuid = l.uuid.toLowerCase();
      const seq = (
        o.dueBefore === undefined
          ? this.s.live.get(l.teamId, uuid)
          : this.s.liveDue.get(l.teamId, uuid, o.dueBefore, o.dueBefore)
      ) as number | undefined;
      if (seq !== undefined) queue.push({ seq, teamId: l.teamId, uuid, merged: false });
    }
    const source = erasureSource(o.requestedBy);
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      if (erased.has(next.seq)) continue;
      erased.add(next.seq);
      uuids.push(next.uuid);
      for (const m of this.s.mergedInto.all(next.uuid, next.teamId) as { seq: number; uuid: string }[])
        queue.push({ seq: m.seq, teamId: next.teamId, uuid: m.uuid, merged: true });
      const { seq, teamId } = next;
      counts.leads++;
      if (next.merged) counts.mergedLeads++;
      counts.webhookAttempts += this.s.attempts.run(teamId, seq).changes;
      counts.webhookDeliveries += this.s.deliveries.run(teamId, seq).changes;
      counts.webhookEvents += this.s.events.run(teamId, seq).changes;
      if ((this.s.textRow.get(seq) as number) > 0) {
        this.s.deleteText.run(seq);
        counts.searchRows++;
      }
      this.s.wipe.run(o.at, o.id, this.clock.next(), source, o.at, seq);
      this.s.erasedEvent.run(uuid7(o.at), teamId, seq, o.at);
    }
    counts.idempotencyKeys += this.s.claims.run(JSON.stringify(uuids)).changes;
    const receipt: ErasureReceipt = {
      id: o.id,
      teamId: o.teamId,
      requestedBy: o.requestedBy,
      requestedAt: o.at,
      emailHash: o.emailHash,
      leadIds: o.leadIds,
      counts,
    };
    this.s.addReceipt.run(receiptValues(receipt));
    if (o.suppress !== null) this.s.suppress.run(o.suppress.teamId, o.suppress.emailHash, o.at, o.id);
    if (o.actor !== null) this.s.audit.run(...auditValues(erasureAuditEntry(receipt, o.actor)));
    return receipt;
  }

  async receipt(id: string): Promise<ErasureReceipt | null> {
    const row = this.s.receipt.get(id.toLowerCase()) as ReceiptRow | undefined;
    return row === undefined ? null : toReceipt(row);
  }

  async reclaim(): Promise<void> {
    if (this.thread === null) this.reclaimHere();
    else await this.thread.reclaim();
  }

  /** The WAL holds the pages as they were before the erasure: checkpoint them and truncate it. */
  reclaimHere(): null {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return null;
  }

  async suppressed(teamId: number, emailHash: string): Promise<boolean> {
    return this.s.suppressed.get(emailHash, teamId) !== undefined;
  }

  async suppressions(teamId: number | null): Promise<Suppression[]> {
    const rows = (
      teamId === null ? this.s.suppressionsAll.all() : this.s.suppressionsOfTeam.all(teamId)
    ) as SuppressionRow[];
    return rows.map(toSuppression);
  }

  async unsuppress(teamId: number | null, emailHash: string): Promise<boolean> {
    return this.s.unsuppress.run(teamId ?? -1, emailHash).changes > 0;
  }
}
