import type Database from 'better-sqlite3';
import type { LeadFilter, LeadScope, SearchPosition, TextClause } from '../../leads/leads.port.js';
import {
  FUZZY_THRESHOLD,
  ftsAnyTrigram,
  leadField,
  TEXT_FIELDS,
  type TextField,
  trigrams,
  wordSimilarity,
} from '../../leads/text.js';
import { LEAD_COLUMNS, STORED_COLUMNS } from '../rows.js';

/**
 * The v2 reads as SQL built per request. Only fixed fragments go into the text; every value
 * travels as a `?` parameter, so the number of distinct statements stays small and cacheable.
 */
export interface Query {
  sql: string;
  params: unknown[];
}

const select = (leads: string, columns = LEAD_COLUMNS): string =>
  `SELECT ${columns} FROM ${leads} JOIN members m ON m.id = l.member_id`;
const SELECT = select('leads l');
/** With version, merged_into and changed_via (StoredLead). */
const SELECT_STORED = select('leads l', STORED_COLUMNS);
// Without the hint a planner with statistics walks the primary key: every team's leads.
const FEED = select('leads l INDEXED BY leads_team_pos', `${STORED_COLUMNS}, l.pos`);

/** The lead_text column of each searchable field. */
const COLUMN: Record<TextField, string> = {
  firstName: 'first_name',
  lastName: 'last_name',
  fullName: 'full_name',
  email: 'email',
  companyName: 'company_name',
  jobTitle: 'job_title',
  note: 'note',
};

/** An FTS5 string: one trigram. */
const quoted = (trigram: string): string => `"${trigram.replaceAll('"', '""')}"`;

const marks = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

/** Appends the scope's conditions on `l` (store.ts LeadScope: the union of members and subteams). */
export function scopeConditions(scope: LeadScope, where: string[], params: unknown[]): void {
  where.push('l.team_id = ?');
  params.push(scope.teamId);
  if (scope.members === undefined && scope.subteams === undefined) return;
  const any: string[] = [];
  const { members = [], subteams = [] } = scope;
  if (members.length > 0) {
    any.push(`l.member_id IN (${marks(members.length)})`);
    params.push(...members);
  }
  if (subteams.length > 0) {
    any.push(`l.member_id IN (SELECT member_id FROM subteam_members
      WHERE team_id = ? AND subteam_id IN (${marks(subteams.length)}) AND is_member = 1)`);
    params.push(scope.teamId, ...subteams);
  }
  where.push(any.length === 0 ? '0' : `(${any.join(' OR ')})`);
}

/**
 * One `query` clause (lead-text.ts has the definitions). FTS5 finds candidates by the trigrams
 * of the clause's columns (migration 4: contentless, detail=column: no text, no positions); the
 * walk checks the scope's candidates as it reaches them, on the text re-derived from the lead's
 * row, so the check (JavaScript, microseconds a call) stops with the page. EXACT compares the
 * folded field itself: padded words drop punctuation ("a.b" and "a b" index alike).
 */
function textCondition(clause: TextClause, params: unknown[]): string {
  const fields = [...new Set(clause.fields)];
  if (fields.length === 0) return '0';
  const filter = `{${fields.map((f) => COLUMN[f]).join(' ')}}`;
  const mask = fields.reduce((m, f) => m | (1 << TEXT_FIELDS.indexOf(f)), 0);
  const row = 'l.fields, l.first_name, l.last_name';
  if (clause.match === 'FUZZY') {
    const anyTrigram = ftsAnyTrigram(clause.value);
    if (anyTrigram === '') return '0'; // no word in the value: its similarity to anything is 0
    params.push(`${filter} : (${anyTrigram})`, clause.value, mask, FUZZY_THRESHOLD);
    // `+`: the candidates only filter the walk in (epoch, seq) order; driving the query from them
    // instead would check every candidate of the team before the first page could be cut.
    return `+l.seq IN (SELECT rowid FROM lead_text WHERE lead_text MATCH ?)
      AND fuzzy_text(?, ?, ?, ${row})`;
  }
  const exact = `exact_text(?, ?, ${row})`;
  // Every padded trigram of the value, in any order: without positions there is no phrase.
  const everyTrigram = [...new Set(trigrams(clause.value))].map(quoted).join(' AND ');
  // Without a word, no trigram narrows the search: the exact check alone decides.
  if (everyTrigram === '') {
    params.push(clause.value, mask);
    return exact;
  }
  params.push(`${filter} : (${everyTrigram})`, clause.value, mask);
  return `l.seq IN (SELECT rowid FROM lead_text WHERE lead_text MATCH ?) AND ${exact}`;
}

export function searchQuery(
  filter: LeadFilter,
  direction: 'ASC' | 'DESC',
  after: SearchPosition | null,
  limit: number,
): Query {
  const where: string[] = [];
  const params: unknown[] = [];
  scopeConditions(filter.scope, where, params);
  where.push('l.merged_into IS NULL AND l.erased_at IS NULL');
  const dir = direction === 'ASC' ? 'ASC' : 'DESC';
  if (after !== null) {
    where.push(`(l.epoch, l.seq) ${dir === 'ASC' ? '>' : '<'} (?, ?)`);
    params.push(after.epoch, after.seq);
  }
  if (filter.start !== null) {
    where.push('l.epoch >= ?');
    params.push(filter.start);
  }
  if (filter.end !== null) {
    where.push('l.epoch < ?');
    params.push(filter.end);
  }
  if (filter.sources !== null) {
    where.push(filter.sources.length === 0 ? '0' : `l.source IN (${marks(filter.sources.length)})`);
    params.push(...filter.sources);
  }
  if (filter.hasEmail !== null) {
    where.push('l.has_email = ?');
    params.push(filter.hasEmail ? 1 : 0);
  }
  for (const clause of filter.text) where.push(textCondition(clause, params));
  params.push(limit);
  return {
    sql: `${SELECT} WHERE ${where.join(' AND ')} ORDER BY l.epoch ${dir}, l.seq ${dir} LIMIT ?`,
    params,
  };
}

/**
 * A merged lead too: get-by-id tells it from one that does not exist (mergedInto). An erased one
 * is as one that does not exist (docs/privacy.md "Erasure": a 404 says no more than that).
 */
export function byUuidQuery(scope: LeadScope, uuid: string): Query {
  const where = ['l.uuid = ?', 'l.erased_at IS NULL'];
  const params: unknown[] = [uuid];
  scopeConditions(scope, where, params);
  return { sql: `${SELECT_STORED} WHERE ${where.join(' AND ')}`, params };
}

/**
 * The feed in `pos` order (migration 10): a change moves a lead to the end. Positions are drawn
 * under the write lock (FeedClock), so pos order is commit order. Merged and erased leads are in it.
 */
export function changesQuery(scope: LeadScope, afterPos: number, limit: number): Query {
  const where: string[] = [];
  const params: unknown[] = [];
  scopeConditions(scope, where, params);
  where.push('l.pos > ?');
  params.push(afterPos, limit);
  return { sql: `${FEED} WHERE ${where.join(' AND ')} ORDER BY l.pos LIMIT ?`, params };
}

/** The scope's unmerged leads in storage order after `afterSeq` (the duplicates finder's walk). */
export function scanQuery(scope: LeadScope, afterSeq: number, limit: number): Query {
  const where: string[] = [];
  const params: unknown[] = [];
  scopeConditions(scope, where, params);
  where.push('l.seq > ?', 'l.merged_into IS NULL AND l.erased_at IS NULL');
  params.push(afterSeq, limit);
  return { sql: `${SELECT_STORED} WHERE ${where.join(' AND ')} ORDER BY l.seq LIMIT ?`, params };
}

/** The text checks (mask: bit i is TEXT_FIELDS[i]) on the clause's fields of the candidate's row. */
export function registerTextFunctions(db: Database.Database): void {
  const anyField = (
    mask: unknown,
    row: [fields: unknown, first: unknown, last: unknown],
    test: (folded: string) => boolean,
  ): number => {
    const fields = JSON.parse(row[0] as string) as Record<string, unknown>;
    const given = { firstName: row[1] as string | null, lastName: row[2] as string | null };
    const bits = Number(mask);
    for (let i = 0; i < TEXT_FIELDS.length; i++) {
      if ((bits & (1 << i)) !== 0 && test(leadField(fields, given, TEXT_FIELDS[i]!))) return 1;
    }
    return 0;
  };
  db.function('fuzzy_text', { deterministic: true }, (value, mask, threshold, fields, first, last) =>
    anyField(mask, [fields, first, last], (t) => wordSimilarity(value as string, t) >= Number(threshold)),
  );
  db.function('exact_text', { deterministic: true }, (value, mask, fields, first, last) =>
    anyField(mask, [fields, first, last], (t) => t === value),
  );
}

/** Prepared statements by SQL text, least recently used dropped first. */
export class StatementCache {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly capacity = 64,
  ) {}

  get(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql).raw(true);
      if (this.statements.size >= this.capacity) {
        const oldest = this.statements.keys().next();
        if (!oldest.done) this.statements.delete(oldest.value);
      }
    } else {
      this.statements.delete(sql);
    }
    this.statements.set(sql, stmt);
    return stmt;
  }
}
