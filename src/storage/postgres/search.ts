import type { LeadFilter, LeadScope, SearchPosition, TextClause } from '../../leads/leads.port.js';
import { FUZZY_THRESHOLD } from '../../leads/text.js';
import { LEAD_COLUMNS, STORED_COLUMNS } from '../rows.js';
import { textFieldIndex } from './text.js';

/**
 * The v2 read queries. Their text is assembled from fixed fragments only; every value travels as
 * a numbered parameter (`Params.add` returns its placeholder), so no value is ever part of SQL.
 */

export interface Query {
  text: string;
  params: unknown[];
}

export class Params {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

export const FROM = 'FROM leads l JOIN members m ON m.id = l.member_id';

/** The team, narrowed to the listed members and the current members of the listed subteams. */
export function scopeCondition(scope: LeadScope, p: Params): string {
  const team = p.add(scope.teamId);
  const any: string[] = [];
  if (scope.members !== undefined) any.push(`l.member_id = ANY(${p.add(scope.members)}::bigint[])`);
  if (scope.subteams !== undefined) {
    any.push(`l.member_id IN (SELECT sm.member_id FROM subteam_members sm WHERE sm.team_id = ${team}
      AND sm.subteam_id = ANY(${p.add(scope.subteams)}::bigint[]) AND sm.is_member)`);
  }
  const base = `l.team_id = ${team}`;
  return any.length === 0 ? base : `${base} AND (${any.join(' OR ')})`;
}

/** LIKE pattern matching `value` anywhere, with LIKE's own wildcards taken literally. */
export function containsPattern(value: string): string {
  return `%${value.replace(/[\\%_]/g, '\\$&')}%`;
}

/**
 * One clause: the trigram index over `search` (all fields joined) finds candidates, then the
 * clause's own fields are checked one by one — a match in another field does not count.
 * `trgm` is pg_trgm's schema (quoted): its operator and function are named with it, since the
 * store's search_path need not include it (trigram.ts).
 */
function textCondition(clause: TextClause, p: Params, trgm: string): string {
  const value = p.add(clause.value);
  const columns = clause.fields.map((f) => `l.text_fields[${textFieldIndex(f)}]`);
  if (clause.match === 'FUZZY') {
    // `<%` is word_similarity(value, search) >= pg_trgm.word_similarity_threshold, which each
    // pool connection sets to FUZZY_THRESHOLD; a field's similarity never exceeds the joined text's.
    const threshold = p.add(FUZZY_THRESHOLD);
    const any = columns.map((c) => `${trgm}.word_similarity(${value}::text, ${c}) >= ${threshold}::real`);
    return `(${value}::text OPERATOR(${trgm}.<%) l.search AND (${any.join(' OR ')}))`;
  }
  const any = columns.map((c) => `${c} = ${value}::text`);
  return `(l.search LIKE ${p.add(containsPattern(clause.value))}::text AND (${any.join(' OR ')}))`;
}

export function searchQuery(
  filter: LeadFilter,
  direction: 'ASC' | 'DESC',
  after: SearchPosition | null,
  limit: number,
  trgm: string,
): Query {
  const p = new Params();
  const where = [scopeCondition(filter.scope, p), 'l.merged_into IS NULL AND l.erased_at IS NULL'];
  if (filter.start !== null) where.push(`l.epoch >= ${p.add(filter.start)}`);
  if (filter.end !== null) where.push(`l.epoch < ${p.add(filter.end)}`);
  if (filter.sources !== null) where.push(`l.source = ANY(${p.add(filter.sources)}::text[])`);
  if (filter.hasEmail !== null) where.push(`l.has_email = ${p.add(filter.hasEmail)}::boolean`);
  for (const clause of filter.text) where.push(textCondition(clause, p, trgm));
  const dir = direction === 'ASC' ? 'ASC' : 'DESC';
  if (after !== null) {
    where.push(`(l.epoch, l.seq) ${dir === 'ASC' ? '>' : '<'} (${p.add(after.epoch)}, ${p.add(after.seq)})`);
  }
  const text = `SELECT ${LEAD_COLUMNS} ${FROM} WHERE ${where.join(' AND ')}
    ORDER BY l.epoch ${dir}, l.seq ${dir} LIMIT ${p.add(limit)}`;
  return { text, params: p.values };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** null when `uuid` is not UUID text: such an id names no lead (and must not be a SQL error). */
export function byUuidQuery(scope: LeadScope, uuid: string): Query | null {
  if (!UUID.test(uuid)) return null;
  const p = new Params();
  const scoped = scopeCondition(scope, p);
  return {
    // An erased lead is as one that does not exist (docs/privacy.md "Erasure").
    text: `SELECT ${STORED_COLUMNS} ${FROM} WHERE ${scoped} AND l.uuid = ${p.add(uuid)}::uuid
      AND l.erased_at IS NULL`,
    params: p.values,
  };
}

/** A change-feed position: the (txid, seq) of the last lead returned. */
export interface FeedPosition {
  txid: number;
  seq: number;
}

export const FEED_START: FeedPosition = { txid: 0, seq: 0 };

export function formatFeedPosition(at: FeedPosition): string {
  return `${at.txid}:${at.seq}`;
}

export function parseFeedPosition(text: string): FeedPosition {
  const m = /^(\d{1,16}):(\d{1,16})$/.exec(text);
  if (m === null) throw new Error(`not a PostgreSQL change-feed position: ${JSON.stringify(text)}`);
  return { txid: Number(m[1]), seq: Number(m[2]) };
}

/**
 * Leads in (txid, seq) order, only those of transactions older than every one still running:
 * seq is drawn before commit, so a lead can commit after leads with a higher seq (and txid); up
 * to the snapshot's xmin every transaction has ended, so nothing can still appear behind `next`.
 * The row's txid comes last, after the STORED_COLUMNS. A change sets a lead's txid to its own
 * transaction's (changes.ts): the lead moves to the end, once that transaction has ended.
 */
export function changesQuery(scope: LeadScope, after: FeedPosition, limit: number): Query {
  const p = new Params();
  const scoped = scopeCondition(scope, p);
  const text = `SELECT ${STORED_COLUMNS}, l.txid ${FROM} WHERE ${scoped}
      AND (l.txid, l.seq) > (${p.add(after.txid)}, ${p.add(after.seq)})
      AND l.txid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
    ORDER BY l.txid, l.seq LIMIT ${p.add(limit)}`;
  return { text, params: p.values };
}

/** The scope's unmerged leads in storage order after `afterSeq` (the duplicates finder's walk). */
export function scanQuery(scope: LeadScope, afterSeq: number, limit: number): Query {
  const p = new Params();
  const scoped = scopeCondition(scope, p);
  const text = `SELECT ${STORED_COLUMNS} ${FROM} WHERE ${scoped} AND l.merged_into IS NULL AND l.erased_at IS NULL
      AND l.seq > ${p.add(afterSeq)} ORDER BY l.seq LIMIT ${p.add(limit)}`;
  return { text, params: p.values };
}
