import { paddedWords, TEXT_FIELDS } from '../../domain/lead-text.js';
import type { NewLead } from '../../domain/store.js';

/**
 * How a lead becomes rows, shared by import and v2 creation so both store the same columns:
 * the lead in `leads`, its searchable text in the FTS5 table `lead_text` under rowid = seq.
 */

/** Parameters in `leadValues` order. */
export const LEAD_INSERT = `INSERT INTO leads (team_id, member_id, lead_id, epoch, time, user_pid, kind,
    location_shared, lat, long, fields, uuid, created_at, source, has_email, first_name, last_name)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

const EMAIL = TEXT_FIELDS.indexOf('email');

export function leadValues(l: NewLead, id: string, uuid: string, createdAt: number): unknown[] {
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
    (l.text[EMAIL] ?? '') !== '' ? 1 : 0,
    l.firstName,
    l.lastName,
  ];
}

/** Parameters for INSERT_LEAD_TEXT (migrations.ts): the FTS5 index holds each field's padded words. */
export function leadTextValues(seq: number, l: NewLead): unknown[] {
  return [seq, ...l.text.map(paddedWords)];
}

export const DELETE_LEAD_TEXT = 'DELETE FROM lead_text WHERE rowid = ?';
