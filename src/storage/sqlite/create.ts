import type Database from 'better-sqlite3';
import type { StoredLead } from '../../leads/lead.js';
import type { CreateResult, IdempotencyClaim, NewLead } from '../../leads/leads.port.js';
import { uuid7 } from '../../shared/uuid7.js';
import { LEAD_ID_DRAWS, leadIdExhausted, leadIds } from '../lead-id.js';
import { STORED_COLUMNS, type StoredRow, toStoredLead } from '../rows.js';
import { FeedClock } from './changes.js';
import { INSERT_LEAD_TEXT, LEAD_INSERT, leadTextValues, leadValues } from './lead-writes.js';
import { INSERT_LEAD_CREATED } from './webhooks.js';

/** How long an `Idempotency-Key` is remembered: after that the key is free again. */
export const CLAIM_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * v2 creation: the lead, its searchable text, its idempotency claim and its webhook event (when
 * the team has an endpoint for it) in one transaction.
 */
export class SqliteLeadCreator {
  private readonly stmts;
  private readonly transaction;
  private readonly clock: FeedClock;

  constructor(db: Database.Database) {
    this.clock = new FeedClock(db);
    this.stmts = {
      claim: db.prepare(
        'SELECT body_hash, lead_uuid, created_at FROM idempotency_keys WHERE key_id = ? AND key = ?',
      ),
      dropClaim: db.prepare('DELETE FROM idempotency_keys WHERE key_id = ? AND key = ?'),
      addClaim: db.prepare(`INSERT INTO idempotency_keys (key_id, key, body_hash, lead_uuid, created_at)
        VALUES (?, ?, ?, ?, ?)`),
      insert: db.prepare(`${LEAD_INSERT} RETURNING seq`),
      // A prefix of leads_identity (team_id, member_id, lead_id, epoch): one index seek.
      idTaken: db.prepare('SELECT 1 FROM leads WHERE team_id = ? AND member_id = ? AND lead_id = ? LIMIT 1'),
      insertText: db.prepare(INSERT_LEAD_TEXT),
      insertEvent: db.prepare(INSERT_LEAD_CREATED),
      byUuid: db
        .prepare(`SELECT ${STORED_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id
        WHERE l.uuid = ?`)
        .raw(true),
    };
    // IMMEDIATE: the claim is read under the write lock, so two requests with one key cannot both create.
    this.transaction = db.transaction((lead: NewLead, claim: IdempotencyClaim | null) =>
      this.createNow(lead, claim),
    ).immediate;
  }

  create(lead: NewLead, claim: IdempotencyClaim | null): CreateResult {
    return this.transaction(lead, claim);
  }

  private createNow(lead: NewLead, claim: IdempotencyClaim | null): CreateResult {
    const now = claim?.at ?? Date.now();
    if (claim !== null) {
      const seen = this.stmts.claim.get(claim.keyId, claim.key) as
        | { body_hash: string; lead_uuid: string; created_at: number }
        | undefined;
      if (seen !== undefined && now - seen.created_at < CLAIM_TTL_MS) {
        if (seen.body_hash !== claim.bodyHash) return { kind: 'conflict' };
        const stored = this.byUuid(seen.lead_uuid);
        if (stored !== null) return { kind: 'replayed', lead: stored };
      }
      if (seen !== undefined) this.stmts.dropClaim.run(claim.keyId, claim.key);
    }
    const uuid = uuid7(now);
    const id = lead.id ?? this.freeId(lead);
    const { seq } = this.stmts.insert.get(leadValues(lead, id, uuid, now, this.clock.next())) as {
      seq: number;
    };
    this.stmts.insertText.run(leadTextValues(seq, lead));
    this.stmts.insertEvent.run(uuid7(now), lead.teamId, seq, now);
    if (claim !== null) this.stmts.addClaim.run(claim.keyId, claim.key, claim.bodyHash, uuid, now);
    return { kind: 'created', lead: this.byUuid(uuid)! };
  }

  /** A random v1 id (lead-id.ts) that none of the member's leads has, checked under the write lock. */
  private freeId(lead: NewLead): string {
    for (let i = 0; i < LEAD_ID_DRAWS; i++) {
      const id = leadIds.draw();
      if (this.stmts.idTaken.get(lead.teamId, lead.memberId, id) === undefined) return id;
    }
    throw leadIdExhausted();
  }

  private byUuid(uuid: string): StoredLead | null {
    const row = this.stmts.byUuid.get(uuid) as StoredRow | undefined;
    return row === undefined ? null : toStoredLead(row);
  }
}
