import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import type { Lead, StoredLead } from '../../leads/lead.js';
import type {
  ChangesPage,
  CreateResult,
  EpochRange,
  IdempotencyClaim,
  LeadFilter,
  LeadMerge,
  LeadRecord,
  LeadScope,
  LeadStore,
  LeadUpdate,
  NewLead,
  RangeScope,
  SearchPosition,
  SubteamLast,
  WriteResult,
} from '../../leads/leads.port.js';
import { type V1Piece, v1Pieces } from '../../leads/v1-wire.js';
import {
  type AnswerKey,
  LastLeadMemory,
  type Remembered,
  subteamLast,
  TEAM_LAST,
} from '../last-lead-memory.js';
import { RANGE_BATCH, type RangeThread } from '../range-thread.js';
import {
  LEAD_COLUMNS,
  type LeadRow,
  leadColumns,
  NO_END,
  type StoredRow,
  SUBTEAM_WINDOW,
  toLead,
  toStoredLead,
} from '../rows.js';
import { SqliteLeadChanges } from './changes.js';
import { SqliteLeadCreator } from './create.js';
import { SUBTEAM_ACCESS } from './directory.js';
import { FileStamp } from './file-stamp.js';
import { SqliteLeadRecords } from './lead-record.js';
import {
  byUuidQuery,
  changesQuery,
  type Query,
  registerTextFunctions,
  StatementCache,
  scanQuery,
  searchQuery,
} from './search.js';

/**
 * The lead's columns, the collector's e-mail read by a look-up per row instead of a join to
 * `members`. A join let the planner choose its loop order: after ANALYZE (or `PRAGMA optimize`)
 * it preferred to scan the team's members and sort their leads — lastOfTeam went from 8 µs to
 * 790 µs on a 100k-lead store (bench/sqlite-statistics.ts) — and, kept as the inner loop by
 * `CROSS JOIN`, once the statistics said a member has many leads (10,000 each on a 10M-lead
 * store) it built a Bloom filter over all of `members` on every call: lastOfMember took 30 µs
 * there against 6 µs as it is now (`bench/sqlite-statistics.ts <10M store> --as-is`). With
 * `leads` the only table, neither can happen.
 */
const COLUMNS = leadColumns('(SELECT m.email FROM members m WHERE m.id = l.member_id)');

/** The read queries, exported so a test can check each one's plan is an index walk. */
export const LEAD_QUERIES = {
  lastOfMember: `SELECT ${COLUMNS} FROM leads l
    WHERE l.team_id = ? AND l.member_id = ? AND l.merged_into IS NULL AND l.erased_at IS NULL ORDER BY l.epoch DESC, l.seq DESC LIMIT 1`,
  lastOfTeam: `SELECT ${COLUMNS} FROM leads l
    WHERE l.team_id = ? AND l.merged_into IS NULL AND l.erased_at IS NULL ORDER BY l.epoch DESC, l.seq DESC LIMIT 1`,
  // A subteam's last lead, in two plans (see lastOfSubteam). First the team's newest leads, newest
  // first, down to `recentWindow`'s bound, stopping at the first whose member is in the subteam.
  // Membership is a scalar subquery, one primary-key look-up per lead: written as EXISTS, SQLite
  // (3.38+) first builds a Bloom filter from every row of the subteam, on every call — 97 µs
  // against 5 µs for this statement on a 10k-lead store with a 500-member subteam
  // (bench/sqlite-statistics.ts).
  recentOfSubteam: `SELECT ${COLUMNS} FROM leads l
    WHERE l.team_id = ? AND (l.epoch, l.seq) >= (?, ?) AND l.merged_into IS NULL AND l.erased_at IS NULL AND (SELECT sm.is_member FROM subteam_members sm
      WHERE sm.team_id = l.team_id AND sm.subteam_id = ? AND sm.member_id = l.member_id) = 1
    ORDER BY l.epoch DESC, l.seq DESC LIMIT 1`,
  // ... the bound: the (epoch, seq) of the team's SUBTEAM_WINDOW-th newest lead, none if it has fewer
  // (merged leads counted: the window is a bound, and stays a covering walk of the index);
  recentWindow: `SELECT l.epoch, l.seq FROM leads l WHERE l.team_id = ?
    ORDER BY l.epoch DESC, l.seq DESC LIMIT 1 OFFSET ${SUBTEAM_WINDOW - 1}`,
  // ... then, when none of those is the subteam's, one index seek per current member of it.
  lastOfSubteam: `SELECT ${LEAD_COLUMNS} FROM subteam_members sm
    JOIN leads l ON l.seq = (
      SELECT l2.seq FROM leads l2 WHERE l2.team_id = sm.team_id AND l2.member_id = sm.member_id
        AND l2.merged_into IS NULL AND l2.erased_at IS NULL
      ORDER BY l2.epoch DESC, l2.seq DESC LIMIT 1)
    JOIN members m ON m.id = l.member_id
    WHERE sm.team_id = ? AND sm.subteam_id = ? AND sm.is_member = 1
    ORDER BY l.epoch DESC, l.seq DESC LIMIT 1`,
  // Keyset pages: (epoch, seq) strictly after the last row sent, so each batch is a fresh read.
  memberRange: `SELECT ${COLUMNS} FROM leads l
    WHERE l.team_id = ? AND l.member_id = ? AND (l.epoch, l.seq) > (?, ?) AND l.epoch < ?
      AND l.merged_into IS NULL AND l.erased_at IS NULL
    ORDER BY l.epoch, l.seq LIMIT ?`,
  teamRange: `SELECT ${COLUMNS} FROM leads l
    WHERE l.team_id = ? AND (l.epoch, l.seq) > (?, ?) AND l.epoch < ?
      AND l.merged_into IS NULL AND l.erased_at IS NULL
    ORDER BY l.epoch, l.seq LIMIT ?`,
};

export class SqliteLeadStore implements LeadStore {
  private readonly lastOfMemberStmt: Database.Statement;
  private readonly lastOfTeamStmt: Database.Statement;
  private readonly lastOfSubteamStmt: Database.Statement;
  private readonly recentOfSubteamStmt: Database.Statement;
  private readonly recentWindowStmt: Database.Statement;
  private readonly subteamAccessStmt: Database.Statement;
  private readonly memberRangeStmt: Database.Statement;
  private readonly teamRangeStmt: Database.Statement;
  private readonly statements: StatementCache;
  private readonly creator: SqliteLeadCreator;
  private readonly changer: SqliteLeadChanges;
  private readonly records: SqliteLeadRecords;
  /** Last-lead answers (member, team, subteam), kept while nothing is committed to the file (FileStamp). */
  private readonly lastLeads = new LastLeadMemory();
  private readonly stamp: FileStamp;

  /** `rangeThread`: where v1 ranges are read (range-thread.ts); null for a database in memory. */
  constructor(
    db: Database.Database,
    private readonly rangeThread: RangeThread | null = null,
  ) {
    registerTextFunctions(db);
    this.statements = new StatementCache(db);
    this.creator = new SqliteLeadCreator(db);
    this.changer = new SqliteLeadChanges(db);
    this.records = new SqliteLeadRecords(db);
    this.lastOfMemberStmt = db.prepare(LEAD_QUERIES.lastOfMember).raw(true);
    this.lastOfTeamStmt = db.prepare(LEAD_QUERIES.lastOfTeam).raw(true);
    this.lastOfSubteamStmt = db.prepare(LEAD_QUERIES.lastOfSubteam).raw(true);
    this.recentOfSubteamStmt = db.prepare(LEAD_QUERIES.recentOfSubteam).raw(true);
    this.recentWindowStmt = db.prepare(LEAD_QUERIES.recentWindow).raw(true);
    this.subteamAccessStmt = db.prepare(SUBTEAM_ACCESS);
    this.memberRangeStmt = db.prepare(LEAD_QUERIES.memberRange).raw(true);
    this.teamRangeStmt = db.prepare(LEAD_QUERIES.teamRange).raw(true);
    this.stamp = new FileStamp(db);
  }

  /**
   * The last-lead reads are answered from memory while the file is unchanged since the answer was
   * read: the stamp is read on every call, so a lead stored by any connection or process — or a
   * directory change, for a subteam's — is in the very next answer.
   */
  async lastOfMember(teamId: number, memberId: number): Promise<Lead | null> {
    return this.remembered(teamId, memberId, () => {
      const row = this.lastOfMemberStmt.get(teamId, memberId) as LeadRow | undefined;
      return row === undefined ? null : toLead(row);
    });
  }

  async lastOfTeam(teamId: number): Promise<Lead | null> {
    return this.remembered(teamId, TEAM_LAST, () => {
      const row = this.lastOfTeamStmt.get(teamId) as LeadRow | undefined;
      return row === undefined ? null : toLead(row);
    });
  }

  /** The answer under `key` (AnswerKey) while the file is unchanged, else `read`'s, then kept. */
  private remembered<T extends Remembered>(teamId: number, key: AnswerKey, read: () => T): T {
    if (this.stamp.moved()) this.lastLeads.forget();
    const known = this.lastLeads.recall<T>(teamId, key, 0);
    if (known !== undefined) return known;
    const answer = read();
    this.lastLeads.keep(this.lastLeads.since(teamId), teamId, key, answer, 0);
    return answer;
  }

  /**
   * The subteam's access for `memberId` (SUBTEAM_ACCESS), then its last lead: the newest lead
   * among the team's SUBTEAM_WINDOW newest that belongs to a current member of the subteam (the
   * window is a prefix of the team's leads, newest first). Only when the window holds none, and
   * the team has more leads than it, are the members' last leads compared, one seek each.
   */
  async lastOfSubteam(teamId: number, subteamId: number, memberId: number): Promise<SubteamLast | null> {
    return this.remembered(teamId, subteamLast(subteamId, memberId), () =>
      this.subteamLast(teamId, subteamId, memberId),
    );
  }

  private subteamLast(teamId: number, subteamId: number, memberId: number): SubteamLast | null {
    const access = this.subteamAccessStmt.get(memberId, subteamId, teamId) as
      | { is_admin: number }
      | undefined;
    if (access === undefined) return null;
    return { memberIsAdmin: access.is_admin === 1, lead: this.subteamLead(teamId, subteamId) };
  }

  private subteamLead(teamId: number, subteamId: number): Lead | null {
    const bound = this.recentWindowStmt.get(teamId) as [number, number] | undefined;
    const recent = this.recentOfSubteamStmt.get(
      teamId,
      bound?.[0] ?? Number.MIN_SAFE_INTEGER,
      bound?.[1] ?? 0,
      subteamId,
    ) as LeadRow | undefined;
    if (recent !== undefined) return toLead(recent);
    if (bound === undefined) return null; // the window held every lead of the team
    const row = this.lastOfSubteamStmt.get(teamId, subteamId) as LeadRow | undefined;
    return row === undefined ? null : toLead(row);
  }

  async *range(scope: RangeScope, range: EpochRange, batchSize: number): AsyncIterable<Lead[]> {
    const end = range.end ?? NO_END;
    let afterEpoch = range.start;
    let afterSeq = 0; // seq starts at 1, so (start, 0) admits every lead at `start`
    for (;;) {
      const rows = (
        scope.memberId === undefined
          ? this.teamRangeStmt.all(scope.teamId, afterEpoch, afterSeq, end, batchSize)
          : this.memberRangeStmt.all(scope.teamId, scope.memberId, afterEpoch, afterSeq, end, batchSize)
      ) as LeadRow[];
      if (rows.length === 0) return;
      const batch = rows.map(toLead);
      const last = batch[batch.length - 1]!;
      afterEpoch = last.epoch;
      afterSeq = last.seq;
      yield batch;
      if (rows.length < batchSize) return;
      // better-sqlite3 is synchronous: give other requests their turn between batches.
      await yieldToEventLoop();
    }
  }

  v1Range(scope: RangeScope, range: EpochRange): AsyncIterable<V1Piece> {
    return this.rangeThread?.read(scope, range) ?? v1Pieces(this.range(scope, range, RANGE_BATCH));
  }

  async search(
    filter: LeadFilter,
    direction: 'ASC' | 'DESC',
    after: SearchPosition | null,
    limit: number,
  ): Promise<Lead[]> {
    return this.all(searchQuery(filter, direction, after, limit));
  }

  async byUuid(scope: LeadScope, uuid: string): Promise<StoredLead | null> {
    // Stored lower case, as uuid7() writes it; PostgreSQL's uuid type ignores case too.
    return this.stored(byUuidQuery(scope, uuid.toLowerCase()))[0] ?? null;
  }

  /** Feed positions are `pos` (migration 10); the row's pos comes last, after the STORED_COLUMNS. */
  async changes(scope: LeadScope, after: string | null, limit: number): Promise<ChangesPage> {
    if (after !== null && !/^\d+$/.test(after)) throw new Error(`not a change-feed position: ${after}`);
    const query = changesQuery(scope, after === null ? 0 : Number(after), limit);
    const rows = this.statements.get(query.sql).all(query.params) as [...StoredRow, number][];
    const last = rows.at(-1);
    return {
      leads: rows.map((r) => toStoredLead(r.slice(0, -1) as unknown as StoredRow)),
      positions: rows.map((r) => String(r[21])),
      next: last === undefined ? (after ?? '0') : String(last[21]),
    };
  }

  async create(lead: NewLead, claim: IdempotencyClaim | null): Promise<CreateResult> {
    return this.creator.create(lead, claim);
  }

  async update(change: LeadUpdate): Promise<WriteResult> {
    return this.changer.update(change);
  }

  async merge(merge: LeadMerge): Promise<WriteResult> {
    return this.changer.merge(merge);
  }

  async *scan(scope: LeadScope, batchSize: number): AsyncIterable<StoredLead[]> {
    for (let after = 0; ; ) {
      const batch = this.stored(scanQuery(scope, after, batchSize));
      if (batch.length === 0) return;
      yield batch;
      if (batch.length < batchSize) return;
      after = batch[batch.length - 1]!.seq;
      await yieldToEventLoop();
    }
  }

  async byEmail(teamId: number | null, email: string, limit: number): Promise<StoredLead[]> {
    return this.records.byEmail(teamId, email, limit);
  }

  async record(teamId: number | null, uuid: string, eventLimit: number): Promise<LeadRecord | null> {
    return this.records.record(teamId, uuid, eventLimit);
  }

  private stored(query: Query): StoredLead[] {
    return (this.statements.get(query.sql).all(query.params) as StoredRow[]).map(toStoredLead);
  }

  private all(query: Query): Lead[] {
    return (this.statements.get(query.sql).all(query.params) as LeadRow[]).map(toLead);
  }
}
