import type { Sql } from 'postgres';
import type { StoredLead } from '../../leads/lead.js';
import type { LeadEvent, LeadRecord } from '../../leads/leads.port.js';
import { leadEvent } from '../endpoint-rows.js';
import { STORED_COLUMNS, type StoredRow, toStoredLead } from '../rows.js';
import { textFieldIndex } from './text.js';

const SELECT = `SELECT ${STORED_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id`;
/** `$1`: the team, or null for any. */
const TEAM = '($1::bigint IS NULL OR l.team_id = $1::bigint)';

/** LIKE pattern matching `value` anywhere, with LIKE's own wildcards taken literally. */
const contains = (value: string): string => `%${value.replace(/[\\%_]/g, '\\$&')}%`;

/**
 * The console's lead page on PostgreSQL (docs/console.md, "Lead page"): leads by e-mail, and a
 * lead with its last change, the leads merged into it and the outbox's events about them.
 */
export class PostgresLeadRecords {
  constructor(private readonly reads: () => Sql) {}

  /**
   * Candidates by the trigram index over `search` (leads_search, as v2's EXACT search), then the
   * folded e-mail field (text_fields), trimmed, compared whole.
   */
  async byEmail(teamId: number | null, email: string, limit: number): Promise<StoredLead[]> {
    const rows = await this.reads()
      .unsafe(
        `${SELECT} WHERE ${TEAM} AND l.search LIKE $2::text
          AND btrim(l.text_fields[${textFieldIndex('email')}]) = $3::text ORDER BY l.seq LIMIT $4`,
        [teamId, contains(email), email, limit] as never[],
      )
      .values();
    return (rows as unknown as StoredRow[]).map(toStoredLead);
  }

  async record(teamId: number | null, uuid: string, eventLimit: number): Promise<LeadRecord | null> {
    const sql = this.reads();
    const [row] = (await sql
      .unsafe(
        `${SELECT.replace('SELECT ', 'SELECT l.changed_at, l.team_id, ')} WHERE ${TEAM} AND l.uuid = $2::uuid`,
        [teamId, uuid] as never[],
      )
      .values()) as unknown as [string | number | null, string | number, ...StoredRow][];
    if (row === undefined) return null;
    const lead = toStoredLead(row.slice(2) as unknown as StoredRow);
    const team = Number(row[1]);
    const merged = (
      (await sql
        .unsafe(`${SELECT} WHERE l.team_id = $1 AND l.merged_into = $2::uuid ORDER BY l.seq`, [
          team,
          lead.uuid,
        ] as never[])
        .values()) as unknown as StoredRow[]
    ).map(toStoredLead);
    // The lead's own events and the merges of leads into it, the newest `eventLimit`: the team's
    // events (webhook_events_team), as many as the retention keeps.
    const events = (await sql.unsafe(
      `SELECT e.type, l.uuid::text AS uuid, e.created_at, e.data FROM webhook_events e
        JOIN leads l ON l.team_id = e.team_id AND l.seq = e.lead_seq
        WHERE e.team_id = $1 AND (e.lead_seq = $2 OR (e.type = 'lead.merged' AND l.merged_into = $3::uuid))
        ORDER BY e.seq DESC LIMIT $4`,
      [team, lead.seq, lead.uuid, eventLimit] as never[],
    )) as unknown as { type: LeadEvent['type']; uuid: string; created_at: string; data: string | null }[];
    return {
      lead,
      changedAt: row[0] === null ? null : Number(row[0]),
      merged,
      events: events.map((e) => leadEvent(e.type, e.uuid, e.created_at, e.data)).reverse(),
    };
  }
}
