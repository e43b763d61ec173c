import type Database from 'better-sqlite3';
import type { StoredLead } from '../../leads/lead.js';
import type { LeadEvent, LeadRecord } from '../../leads/leads.port.js';
import { fold, trigrams } from '../../leads/text.js';
import { leadEvent } from '../endpoint-rows.js';
import { STORED_COLUMNS, type StoredRow, toStoredLead } from '../rows.js';

const SELECT = `SELECT ${STORED_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id`;
/** `?`: team (null: any) twice. */
const TEAM = '(? IS NULL OR l.team_id = ?)';

/**
 * The console's lead page on SQLite (docs/console.md, "Lead page"): leads by e-mail, and a lead
 * with its last change, the leads merged into it and the outbox's events about them.
 */
export class SqliteLeadRecords {
  private readonly s;

  constructor(db: Database.Database) {
    this.s = {
      // Candidates by every trigram of the e-mail in lead_text's email column (as v2's EXACT
      // search), then the e-mail itself compared below: trimmed and folded.
      byTrigrams: db
        .prepare(`${SELECT} WHERE ${TEAM} AND l.seq IN (SELECT rowid FROM lead_text WHERE lead_text MATCH ?)
          ORDER BY l.seq`)
        .raw(true),
      // An e-mail without a word (no trigram): the team's leads, walked.
      everyLead: db.prepare(`${SELECT} WHERE ${TEAM} ORDER BY l.seq`).raw(true),
      lead: db
        .prepare(
          `${SELECT.replace('SELECT ', 'SELECT l.changed_at, l.team_id, ')} WHERE ${TEAM} AND l.uuid = ?`,
        )
        .raw(true),
      merged: db.prepare(`${SELECT} WHERE l.team_id = ? AND l.merged_into = ? ORDER BY l.seq`).raw(true),
      // The lead's own events and the merges of leads into it, newest `limit`: the team's events
      // (webhook_events_team), as many as the retention keeps.
      events: db.prepare(`SELECT e.type, l.uuid, e.created_at, e.data FROM webhook_events e
          JOIN leads l ON l.team_id = e.team_id AND l.seq = e.lead_seq
          WHERE e.team_id = ? AND (e.lead_seq = ? OR (e.type = 'lead.merged' AND l.merged_into = ?))
          ORDER BY e.seq DESC LIMIT ?`),
    };
  }

  byEmail(teamId: number | null, email: string, limit: number): StoredLead[] {
    const every = [...new Set(trigrams(email))].map((t) => `"${t.replaceAll('"', '""')}"`).join(' AND ');
    const rows = (
      every === ''
        ? this.s.everyLead.iterate(teamId, teamId)
        : this.s.byTrigrams.iterate(teamId, teamId, `{email} : (${every})`)
    ) as IterableIterator<StoredRow>;
    const found: StoredLead[] = [];
    for (const row of rows) {
      const lead = toStoredLead(row);
      if (emailOf(lead) !== email) continue;
      found.push(lead);
      if (found.length === limit) break;
    }
    return found;
  }

  record(teamId: number | null, uuid: string, eventLimit: number): LeadRecord | null {
    const row = this.s.lead.get(teamId, teamId, uuid.toLowerCase()) as
      | [number | null, number, ...StoredRow]
      | undefined;
    if (row === undefined) return null;
    const lead = toStoredLead(row.slice(2) as unknown as StoredRow);
    const teamOf = row[1];
    const merged = (this.s.merged.all(teamOf, lead.uuid) as StoredRow[]).map(toStoredLead);
    const events = (
      this.s.events.all(teamOf, lead.seq, lead.uuid, eventLimit) as {
        type: LeadEvent['type'];
        uuid: string;
        created_at: number;
        data: string | null;
      }[]
    )
      .map((e) => leadEvent(e.type, e.uuid, e.created_at, e.data))
      .reverse();
    return { lead, changedAt: row[0], merged, events };
  }
}

/** The lead's e-mail as the search compares it (lead-history.ts normalisedEmail). */
export function emailOf(lead: StoredLead): string {
  const email = (JSON.parse(lead.fields) as { email?: unknown }).email;
  return typeof email === 'string' ? fold(email.trim()).trim() : '';
}
