import type Database from 'better-sqlite3';
import type { StoredLead } from '../../leads/lead.js';
import { sameValues } from '../../leads/lead-change.js';
import type { LeadMerge, LeadUpdate, WriteResult } from '../../leads/leads.port.js';
import { paddedWords } from '../../leads/text.js';
import { uuid7 } from '../../shared/uuid7.js';
import type { EventType } from '../../webhooks/webhook.js';
import { eventData } from '../endpoint-rows.js';
import { STORED_COLUMNS, type StoredRow, toStoredLead } from '../rows.js';
import { DELETE_LEAD_TEXT, INSERT_LEAD_TEXT } from './lead-writes.js';

/**
 * Positions in the change feed (migration 10): one counter for the store, drawn under the write
 * lock by every create, change and import, so position order is commit order.
 */
export class FeedClock {
  private readonly read;
  private readonly write;

  constructor(db: Database.Database) {
    this.read = db.prepare('SELECT pos FROM feed_clock WHERE id = 1').pluck();
    this.write = db.prepare('UPDATE feed_clock SET pos = ? WHERE id = 1');
  }

  /** The last position drawn. Inside a write transaction only. */
  last(): number {
    return this.read.get() as number;
  }

  /** Records `pos` as the last position drawn. */
  advance(pos: number): void {
    this.write.run(pos);
  }

  /** Draws the next position. */
  next(): number {
    const pos = this.last() + 1;
    this.advance(pos);
    return pos;
  }
}

/** An event with its change, to the event log (docs/v2.md "Events"): (id, team, seq, at, data). */
const insertEvent = (
  type: EventType,
) => `INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at, data)
  VALUES (?, ?, '${type}', ?, ?, ?)`;

/** Stale: a lead was not at its version, merged, or gone — the transaction is rolled back. */
class Stale extends Error {}

/** Lead updates and merges on SQLite, each one IMMEDIATE transaction with its outbox events. */
export class SqliteLeadChanges {
  private readonly s;
  private readonly clock: FeedClock;
  private readonly updateTx;
  private readonly mergeTx;

  constructor(db: Database.Database) {
    this.clock = new FeedClock(db);
    this.s = {
      write: db.prepare(`UPDATE leads SET time = ?, user_pid = ?, kind = ?, location_shared = ?, lat = ?,
          long = ?, fields = ?, source = ?, has_email = ?, first_name = ?, last_name = ?, pos = ?,
          version = version + 1, changed_via = ?, changed_at = ?
        WHERE team_id = ? AND uuid = ? AND version = ? AND merged_into IS NULL AND erased_at IS NULL RETURNING seq`),
      current: db
        .prepare(
          'SELECT seq FROM leads WHERE team_id = ? AND uuid = ? AND version = ? AND merged_into IS NULL AND erased_at IS NULL',
        )
        .pluck(),
      mergeInto:
        db.prepare(`UPDATE leads SET merged_into = ?, pos = ?, version = version + 1, changed_via = ?,
          changed_at = ? WHERE team_id = ? AND uuid = ? AND version = ? AND merged_into IS NULL AND erased_at IS NULL RETURNING seq`),
      deleteText: db.prepare(DELETE_LEAD_TEXT),
      insertText: db.prepare(INSERT_LEAD_TEXT),
      updated: db.prepare(insertEvent('lead.updated')),
      merged: db.prepare(insertEvent('lead.merged')),
      read: db
        .prepare(
          `SELECT ${STORED_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id WHERE l.uuid = ?`,
        )
        .raw(true),
    };
    this.updateTx = db.transaction((c: LeadUpdate) => {
      this.write(c);
      return this.read(c.uuid);
    }).immediate;
    this.mergeTx = db.transaction((m: LeadMerge) => {
      const { survivor } = m;
      for (const merged of m.merged) {
        const row = this.s.mergeInto.get(
          survivor.uuid,
          this.clock.next(),
          survivor.source,
          survivor.at,
          survivor.teamId,
          merged.uuid,
          merged.version,
        ) as { seq: number } | undefined;
        if (row === undefined) throw new Stale();
        const data = eventData({
          source: survivor.source,
          mergedInto: survivor.uuid,
          version: merged.version + 1,
        });
        this.s.merged.run(uuid7(survivor.at), survivor.teamId, row.seq, survivor.at, data);
      }
      if (sameValues(survivor.before, survivor.values)) {
        if (this.s.current.get(survivor.teamId, survivor.uuid, survivor.version) === undefined)
          throw new Stale();
      } else this.write(survivor);
      return this.read(survivor.uuid);
    }).immediate;
  }

  update(change: LeadUpdate): WriteResult {
    return this.stale(() => this.updateTx(change));
  }

  merge(merge: LeadMerge): WriteResult {
    return this.stale(() => this.mergeTx(merge));
  }

  private stale(work: () => StoredLead): WriteResult {
    try {
      return { kind: 'written', lead: work() };
    } catch (err) {
      if (err instanceof Stale) return { kind: 'stale' };
      throw err;
    }
  }

  /** The new values, the searchable text again, a new feed position and the event. */
  private write(c: LeadUpdate): void {
    const v = c.values;
    const row = this.s.write.get(
      v.time,
      v.userPid,
      v.kind,
      v.locationShared ? 1 : 0,
      v.lat,
      v.long,
      v.fields,
      v.source,
      c.hasEmail ? 1 : 0,
      v.firstName,
      v.lastName,
      this.clock.next(),
      c.source,
      c.at,
      c.teamId,
      c.uuid,
      c.version,
    ) as { seq: number } | undefined;
    if (row === undefined) throw new Stale();
    this.s.deleteText.run(row.seq);
    this.s.insertText.run(row.seq, ...c.text.map(paddedWords));
    const data = eventData({ source: c.source, before: c.before, after: c.values, version: c.version + 1 });
    this.s.updated.run(uuid7(c.at), c.teamId, row.seq, c.at, data);
  }

  private read(uuid: string): StoredLead {
    return toStoredLead(this.s.read.get(uuid) as StoredRow);
  }
}
