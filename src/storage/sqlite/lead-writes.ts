import type Database from 'better-sqlite3';
import type { NewLead } from '../../leads/leads.port.js';
import { foldedText, leadText, paddedWords } from '../../leads/text.js';

/**
 * How a lead becomes rows, shared by import, v2 creation and the migrations that (re)build the
 * index, so all store the same: the lead in `leads`, its searchable text indexed in the FTS5
 * table `lead_text` under rowid = seq. The index is contentless (migration 4): it keeps the
 * trigrams, not the text; the text is re-derived from `leads` when a search needs it.
 */

/** Parameters in `leadValues` order. */
export const LEAD_INSERT = `INSERT INTO leads (team_id, member_id, lead_id, epoch, time, user_pid, kind,
    location_shared, lat, long, fields, uuid, created_at, source, has_email, first_name, last_name, pos)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** `pos`: the lead's place in the change feed (changes.ts FeedClock). */
export function leadValues(l: NewLead, id: string, uuid: string, createdAt: number, pos: number): unknown[] {
  return [
    l.teamId,
    l.memberId,
    id,
    l.epoch,
    l.time,
    l.userPid,
    l.kind,
    l.locationShared ? 1 : 0,
    l.lat,
    l.long,
    l.fields,
    uuid,
    createdAt,
    l.source,
    l.hasEmail ? 1 : 0,
    l.firstName,
    l.lastName,
    pos,
  ];
}

/** Statement that indexes one lead's searchable text (rowid = the lead's seq). */
export const INSERT_LEAD_TEXT = `INSERT INTO lead_text (rowid, first_name, last_name, full_name, email,
  company_name, job_title, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

/** Parameters for INSERT_LEAD_TEXT: the FTS5 index holds each field's padded words. */
export function leadTextValues(seq: number, l: NewLead): unknown[] {
  return [seq, ...(l.words ?? foldedText(l).map(paddedWords))];
}

/** Needs no old values: the contentless table is declared with `contentless_delete = 1`. */
export const DELETE_LEAD_TEXT = 'DELETE FROM lead_text WHERE rowid = ?';

/**
 * Indexes every stored lead's text, from the columns it is derived from (as import derives it).
 * In batches: better-sqlite3 refuses a write while an iteration is open on the connection.
 */
export function backfillLeadText(db: Database.Database): void {
  const insert = db.prepare(INSERT_LEAD_TEXT);
  const batch = db.prepare(
    'SELECT seq, fields, first_name, last_name FROM leads WHERE seq > ? ORDER BY seq LIMIT 1000',
  );
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const rows = batch.all(after) as {
      seq: number;
      fields: string;
      first_name: string | null;
      last_name: string | null;
    }[];
    if (rows.length === 0) return;
    for (const r of rows) {
      const text = leadText(JSON.parse(r.fields), { firstName: r.first_name, lastName: r.last_name });
      insert.run(r.seq, ...text.map(paddedWords));
    }
    after = rows[rows.length - 1]!.seq;
  }
}
