import type Database from 'better-sqlite3';
import type { StoredLead } from '../../leads/lead.js';
import type { LeadScope } from '../../leads/leads.port.js';
import { trigrams } from '../../leads/text.js';
import type { CarriedDelivery, PrivacyStore } from '../../privacy/privacy.port.js';
import { CARRIED_COLUMNS, CARRIED_FROM, type CarriedRow, toCarried } from '../privacy-rows.js';
import { STORED_COLUMNS, type StoredRow, toStoredLead } from '../rows.js';
import { type Query, StatementCache, scopeConditions } from './search.js';

/**
 * The privacy port on the embedded store (docs/privacy.md "Subject access"). A person's leads
 * come from the FTS5 trigram index (lead_text, migration 4): every padded trigram of the
 * address's words in the `email` column — the EXACT search's candidates — so the cost follows
 * the leads that share those words, not the team's size. Their deliveries come through
 * webhook_events_lead (migration 11), then each event's deliveries (their `(event_id,
 * endpoint_id)` key) and attempts (`(delivery_id, id)`).
 */

/**
 * The candidates of `foldedEmail` in the scope, merged leads too; null when the address has no
 * word (refused before: person-email.ts). CROSS JOIN keeps the order — the index's candidates
 * first, each lead by its key, the scope a check on it — never a walk of the team's or a
 * member's leads (test/privacy/subject-access.test.ts checks the plan).
 */
export function emailCandidatesQuery(scope: LeadScope, foldedEmail: string): Query | null {
  const every = [...new Set(trigrams(foldedEmail))].map((t) => `"${t.replaceAll('"', '""')}"`);
  if (every.length === 0) return null;
  const where: string[] = [];
  const params: unknown[] = [`{email} : (${every.join(' AND ')})`];
  scopeConditions(scope, where, params);
  return {
    sql: `SELECT ${STORED_COLUMNS}
      FROM (SELECT rowid AS seq FROM lead_text WHERE lead_text MATCH ?) c
      CROSS JOIN leads l ON l.seq = c.seq JOIN members m ON m.id = l.member_id
      WHERE ${where.join(' AND ')} ORDER BY l.seq`,
    params,
  };
}

/**
 * The deliveries of a team's events about leads given as one JSON array of seqs (one statement
 * whatever their number); parameters: the array, the team. CROSS JOIN and INDEXED BY fix the
 * plan: from each seq through webhook_events_lead, never a walk of the team's events.
 */
export const CARRIED_SQL = `SELECT ${CARRIED_COLUMNS}
  FROM json_each(?) j
  CROSS JOIN ${CARRIED_FROM.replace('webhook_events e', 'webhook_events e INDEXED BY webhook_events_lead')}
  WHERE e.team_id = ? AND e.lead_seq = j.value
  ORDER BY e.seq, d.id`;

export class SqlitePrivacyStore implements PrivacyStore {
  private readonly statements: StatementCache;
  private readonly carried: Database.Statement;

  constructor(db: Database.Database) {
    this.statements = new StatementCache(db);
    this.carried = db.prepare(CARRIED_SQL).raw(true);
  }

  async leadsByEmail(scope: LeadScope, foldedEmail: string): Promise<StoredLead[]> {
    const query = emailCandidatesQuery(scope, foldedEmail);
    if (query === null) return [];
    return (this.statements.get(query.sql).all(query.params) as StoredRow[]).map(toStoredLead);
  }

  async deliveriesOfLeads(teamId: number, leadSeqs: number[]): Promise<CarriedDelivery[]> {
    if (leadSeqs.length === 0) return [];
    return (this.carried.all(JSON.stringify(leadSeqs), teamId) as CarriedRow[]).map(toCarried);
  }
}
