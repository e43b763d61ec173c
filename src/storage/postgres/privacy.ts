import type { Sql } from 'postgres';
import type { StoredLead } from '../../leads/lead.js';
import type { LeadScope } from '../../leads/leads.port.js';
import type { CarriedDelivery, PrivacyStore } from '../../privacy/privacy.port.js';
import { CARRIED_COLUMNS, CARRIED_FROM, type CarriedRow, toCarried } from '../privacy-rows.js';
import { STORED_COLUMNS, type StoredRow, toStoredLead } from '../rows.js';
import { containsPattern, FROM, Params, scopeCondition } from './search.js';
import { textFieldIndex } from './text.js';

/**
 * The privacy port on PostgreSQL (docs/privacy.md "Subject access"), on the primary: an answer
 * to a person misses no lead stored a moment ago. A person's leads come from the pg_trgm GIN
 * index over `search` (leads_search, migration 4) — `LIKE '%address%'`, the EXACT search's
 * candidates — rechecked on the e-mail field; their deliveries through webhook_events_lead
 * (migration 11), each event's deliveries (`(event_id, endpoint_id)`) and attempts.
 */
export class PostgresPrivacyStore implements PrivacyStore {
  constructor(private readonly sql: Sql) {}

  async leadsByEmail(scope: LeadScope, foldedEmail: string): Promise<StoredLead[]> {
    const p = new Params();
    const scoped = scopeCondition(scope, p);
    const pattern = p.add(containsPattern(foldedEmail));
    const text = `SELECT ${STORED_COLUMNS} ${FROM} WHERE ${scoped}
      AND l.search LIKE ${pattern}::text AND l.text_fields[${textFieldIndex('email')}] LIKE ${pattern}::text
      ORDER BY l.seq`;
    const rows = (await this.sql.unsafe(text, p.values as never[]).values()) as unknown as StoredRow[];
    return rows.map(toStoredLead);
  }

  async deliveriesOfLeads(teamId: number, leadSeqs: number[]): Promise<CarriedDelivery[]> {
    if (leadSeqs.length === 0) return [];
    const rows = (await this.sql
      .unsafe(
        `SELECT ${CARRIED_COLUMNS} FROM ${CARRIED_FROM}
          WHERE e.team_id = $1 AND e.lead_seq = ANY($2::bigint[])
          ORDER BY e.seq, d.id`,
        [teamId, leadSeqs] as never[],
      )
      .values()) as unknown as CarriedRow[];
    return rows.map(toCarried);
  }
}
