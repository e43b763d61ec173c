// Longer than the ~250 lines most files keep to: the LeadStore port on PostgreSQL (range reads, v2
// search, changes, creation); each method is a statement and its row mapping, and the search is
// its own file (search.ts).
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Sql, TransactionSql } from 'postgres';
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
import { foldedText } from '../../leads/text.js';
import { type V1Piece, v1Pieces } from '../../leads/v1-wire.js';
import { uuid7 } from '../../shared/uuid7.js';
import { subteamLast, TEAM_LAST } from '../last-lead-memory.js';
import { LEAD_ID_DRAWS, leadIdExhausted, leadIds } from '../lead-id.js';
import { RANGE_BATCH, type RangeThread } from '../range-thread.js';
import {
  LEAD_COLUMNS,
  type LeadRow,
  NO_END,
  STORED_COLUMNS,
  type StoredRow,
  SUBTEAM_WINDOW,
  toLead,
  toStoredLead,
} from '../rows.js';
import { PostgresLeadChanges } from './changes.js';
import { PG_SUBTEAM_ACCESS } from './directory.js';
import type { PostgresLastLeads } from './last-leads.js';
import { PostgresLeadRecords } from './lead-record.js';
import {
  byUuidQuery,
  changesQuery,
  FEED_START,
  formatFeedPosition,
  parseFeedPosition,
  type Query,
  scanQuery,
  searchQuery,
} from './search.js';
import { searchText } from './text.js';
import type { TrigramSchema } from './trigram.js';

/** Leads per PostgreSQL range query: ten v1 batches a round trip. */
export const RANGE_PAGE = 1000;

/** An Idempotency-Key is remembered this long; an older claim counts as absent. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * A subteam's last lead: the first lead of a current member among the team's SUBTEAM_WINDOW
 * newest (a walk down leads_team_epoch that stops at the first match); when that window holds
 * none, one index seek per current member (LATERAL). Either arm, when it returns a lead, returns
 * the subteam's last, so whichever answers first is right; Append runs the second only when the
 * first is empty.
 */
const SUBTEAM_LEAD = `(SELECT ${LEAD_COLUMNS} FROM (SELECT * FROM leads
      WHERE team_id = $1 ORDER BY epoch DESC, seq DESC LIMIT ${SUBTEAM_WINDOW}) l
    JOIN members m ON m.id = l.member_id
    WHERE l.merged_into IS NULL AND l.erased_at IS NULL AND EXISTS (SELECT 1 FROM subteam_members sm WHERE sm.team_id = $1 AND sm.subteam_id = $2
      AND sm.member_id = l.member_id AND sm.is_member)
    ORDER BY l.epoch DESC, l.seq DESC LIMIT 1)
  UNION ALL
  (SELECT ${LEAD_COLUMNS} FROM subteam_members sm
    CROSS JOIN LATERAL (SELECT * FROM leads l2 WHERE l2.team_id = sm.team_id AND l2.member_id = sm.member_id
      AND l2.merged_into IS NULL AND l2.erased_at IS NULL ORDER BY l2.epoch DESC, l2.seq DESC LIMIT 1) l
    JOIN members m ON m.id = l.member_id
    WHERE sm.team_id = $1 AND sm.subteam_id = $2 AND sm.is_member
    ORDER BY l.epoch DESC, l.seq DESC LIMIT 1)
  LIMIT 1`;

/** The read queries; the same shapes as on SQLite, every one an index walk leading with team_id. */
export const PG_LEAD_QUERIES = {
  lastOfMember: `SELECT ${LEAD_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id
    WHERE l.team_id = $1 AND l.member_id = $2 AND l.merged_into IS NULL AND l.erased_at IS NULL ORDER BY l.epoch DESC, l.seq DESC LIMIT 1`,
  lastOfTeam: `SELECT ${LEAD_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id
    WHERE l.team_id = $1 AND l.merged_into IS NULL AND l.erased_at IS NULL ORDER BY l.epoch DESC, l.seq DESC LIMIT 1`,
  // v1 getLastLeadSubTeam in one round trip: whether subteam $2 is team $1's and member $3
  // administers it (PG_SUBTEAM_ACCESS; no row: not the team's), its last lead beside (SUBTEAM_LEAD).
  lastOfSubteam: `SELECT a.is_admin, l.* FROM (${PG_SUBTEAM_ACCESS}) a
    LEFT JOIN LATERAL (${SUBTEAM_LEAD}) l ON true`,
  memberRange: `SELECT ${LEAD_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id
    WHERE l.team_id = $1 AND l.member_id = $2 AND (l.epoch, l.seq) > ($3, $4) AND l.epoch < $5
      AND l.merged_into IS NULL AND l.erased_at IS NULL
    ORDER BY l.epoch, l.seq LIMIT $6`,
  teamRange: `SELECT ${LEAD_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id
    WHERE l.team_id = $1 AND (l.epoch, l.seq) > ($2, $3) AND l.epoch < $4
      AND l.merged_into IS NULL AND l.erased_at IS NULL
    ORDER BY l.epoch, l.seq LIMIT $5`,
};

export class PostgresLeadStore implements LeadStore {
  /** `sql` is the primary (writes); `reads` names the pool for each read: the primary, or a replica fresh enough. */
  private readonly changes_: PostgresLeadChanges;
  private readonly records: PostgresLeadRecords;

  /**
   * `lastLeads`: where last-lead answers are remembered, and told of this store's writes;
   * null: every lastOf… is a query (with a read replica: store.ts).
   */
  constructor(
    private readonly sql: Sql,
    private readonly reads: () => Sql,
    private readonly trigram: TrigramSchema,
    private readonly lastLeads: PostgresLastLeads | null = null,
    /** Where v1 ranges are read (range-thread.ts); null with a read replica (reads follow its router). */
    private readonly rangeThread: RangeThread | null = null,
  ) {
    this.changes_ = new PostgresLeadChanges(sql);
    this.records = new PostgresLeadRecords(reads);
  }

  private async one(query: string, params: number[]): Promise<Lead | null> {
    const rows = (await this.reads()
      .unsafe(query, params, { prepare: true })
      .values()) as unknown as LeadRow[];
    return rows[0] === undefined ? null : toLead(rows[0]);
  }

  lastOfMember(teamId: number, memberId: number): Promise<Lead | null> {
    const query = () => this.one(PG_LEAD_QUERIES.lastOfMember, [teamId, memberId]);
    return this.lastLeads === null ? query() : this.lastLeads.read(teamId, memberId, query);
  }

  lastOfTeam(teamId: number): Promise<Lead | null> {
    const query = () => this.one(PG_LEAD_QUERIES.lastOfTeam, [teamId]);
    return this.lastLeads === null ? query() : this.lastLeads.read(teamId, TEAM_LAST, query);
  }

  /** The access and the lead in one statement (PG_LEAD_QUERIES.lastOfSubteam): one round trip. */
  lastOfSubteam(teamId: number, subteamId: number, memberId: number): Promise<SubteamLast | null> {
    const query = () => this.subteamLast(teamId, subteamId, memberId);
    return this.lastLeads === null
      ? query()
      : this.lastLeads.read(teamId, subteamLast(subteamId, memberId), query);
  }

  private async subteamLast(
    teamId: number,
    subteamId: number,
    memberId: number,
  ): Promise<SubteamLast | null> {
    const rows = (await this.reads()
      .unsafe(PG_LEAD_QUERIES.lastOfSubteam, [teamId, subteamId, memberId], { prepare: true })
      .values()) as unknown as [boolean, ...LeadRow][];
    const row = rows[0];
    if (row === undefined) return null;
    const [memberIsAdmin, ...lead] = row;
    // No lead: the LEFT JOIN's columns are all null (a stored lead's seq never is).
    return { memberIsAdmin, lead: lead[0] === null ? null : toLead(lead as LeadRow) };
  }

  /**
   * Keyset pages of RANGE_PAGE leads, each its own short query (no cursor or connection held
   * while the client reads), handed out in batches of `batchSize`. The next page is asked for
   * before the current one is handed out, so the round trip overlaps the sending.
   */
  async *range(scope: RangeScope, range: EpochRange, batchSize: number): AsyncIterable<Lead[]> {
    const end = range.end ?? NO_END;
    const pageSize = Math.max(batchSize, RANGE_PAGE);
    const page = (afterEpoch: number, afterSeq: number): Promise<LeadRow[]> => {
      const sql = this.reads();
      const query =
        scope.memberId === undefined
          ? sql.unsafe(PG_LEAD_QUERIES.teamRange, [scope.teamId, afterEpoch, afterSeq, end, pageSize], {
              prepare: true,
            })
          : sql.unsafe(
              PG_LEAD_QUERIES.memberRange,
              [scope.teamId, scope.memberId, afterEpoch, afterSeq, end, pageSize],
              { prepare: true },
            );
      return query.values() as unknown as Promise<LeadRow[]>;
    };
    let pending: Promise<LeadRow[]> | null = page(range.start, 0); // seq starts at 1
    try {
      while (pending !== null) {
        const rows = await pending;
        pending = null;
        if (rows.length === 0) return;
        const leads = rows.map(toLead);
        if (rows.length === pageSize) {
          const last = leads[leads.length - 1]!;
          pending = page(last.epoch, last.seq);
        }
        for (let i = 0; i < leads.length; i += batchSize) {
          if (i > 0) await yieldToEventLoop(); // other requests get a turn between batches
          yield leads.slice(i, i + batchSize);
        }
      }
    } finally {
      // A client that went away mid-answer leaves a page in flight: let it settle unobserved.
      pending?.catch(() => {});
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
    // Not prepared: the text varies with the filter's shape, and each shape would stay cached.
    const query = searchQuery(filter, direction, after, limit, await this.trigram.get());
    return (await rowsOf(this.reads(), query)).map(toLead);
  }

  async byUuid(scope: LeadScope, uuid: string, fromPrimary = false): Promise<StoredLead | null> {
    const query = byUuidQuery(scope, uuid);
    if (query === null) return null;
    const reads = fromPrimary ? this.sql : this.reads();
    let [row] = await rowsOf<StoredRow>(reads, query);
    // A replica may not have replayed a lead created a moment ago: the id came from somewhere,
    // so ask the primary before answering 404 (read-your-writes for get-by-id).
    if (row === undefined && reads !== this.sql) [row] = await rowsOf<StoredRow>(this.sql, query);
    return row === undefined ? null : toStoredLead(row);
  }

  byEmail(teamId: number | null, email: string, limit: number): Promise<StoredLead[]> {
    return this.records.byEmail(teamId, email, limit);
  }

  record(teamId: number | null, uuid: string, eventLimit: number): Promise<LeadRecord | null> {
    return this.records.record(teamId, uuid, eventLimit);
  }

  async changes(scope: LeadScope, after: string | null, limit: number): Promise<ChangesPage> {
    const from = after === null ? FEED_START : parseFeedPosition(after);
    const rows = await rowsOf<[...StoredRow, number]>(this.reads(), changesQuery(scope, from, limit));
    const last = rows[rows.length - 1];
    return {
      leads: rows.map((r) => toStoredLead(r.slice(0, -1) as unknown as StoredRow)),
      positions: rows.map((r) => formatFeedPosition({ txid: r[21], seq: r[0] })),
      next: formatFeedPosition(last === undefined ? from : { txid: last[21], seq: last[0] }),
    };
  }

  update(change: LeadUpdate): Promise<WriteResult> {
    return this.changes_.update(change).finally(() => this.lastLeads?.changed(change.teamId));
  }

  merge(merge: LeadMerge): Promise<WriteResult> {
    return this.changes_.merge(merge).finally(() => this.lastLeads?.changed(merge.survivor.teamId));
  }

  async *scan(scope: LeadScope, batchSize: number): AsyncIterable<StoredLead[]> {
    for (let after = 0; ; ) {
      const batch = (await rowsOf<StoredRow>(this.reads(), scanQuery(scope, after, batchSize))).map(
        toStoredLead,
      );
      if (batch.length === 0) return;
      yield batch;
      if (batch.length < batchSize) return;
      after = batch[batch.length - 1]!.seq;
    }
  }

  /** One transaction on the primary: the claim, the lead, its webhook event and reading it back. */
  async create(lead: NewLead, claim: IdempotencyClaim | null): Promise<CreateResult> {
    try {
      return await this.createIn(lead, claim);
    } finally {
      this.lastLeads?.changed(lead.teamId);
    }
  }

  private async createIn(lead: NewLead, claim: IdempotencyClaim | null): Promise<CreateResult> {
    const text = foldedText(lead);
    return (await this.sql.begin(async (tx) => {
      const now = Date.now();
      const uuid = uuid7(now);
      if (claim !== null) {
        const earlier = await claimOrEarlier(tx, claim, uuid);
        if (earlier !== null) {
          if (earlier.bodyHash !== claim.bodyHash) return { kind: 'conflict' };
          const [row] = await rowsOf<StoredRow>(tx, byUuidQuery({ teamId: lead.teamId }, earlier.leadUuid)!);
          if (row === undefined) throw new Error(`idempotency key ${claim.key}: its lead is gone`);
          return { kind: 'replayed', lead: toStoredLead(row) };
        }
      }
      const [next] = await tx<{ seq: number }[]>`SELECT nextval('leads_seq') AS seq`;
      const seq = next!.seq;
      const id = lead.id ?? (await freeLeadId(tx, lead));
      // The lead and its event in the log (docs/v2.md "Events"): one statement.
      await tx`WITH ins AS (INSERT INTO leads (team_id, seq, member_id, lead_id, epoch, time, user_pid, kind,
          location_shared, lat, long, fields, uuid, created_at, source, has_email, first_name, last_name,
          text_fields, search)
        VALUES (${lead.teamId}, ${seq}, ${lead.memberId}, ${id}, ${lead.epoch}, ${lead.time},
          ${lead.userPid}, ${lead.kind}, ${lead.locationShared}, ${lead.lat}, ${lead.long}, ${lead.fields}, ${uuid},
          ${now}, ${lead.source}, ${lead.hasEmail}, ${lead.firstName}, ${lead.lastName},
          ${tx.array(text)}::text[], ${searchText(text)})
        RETURNING team_id, seq)
      INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at)
        SELECT ${uuid7(now)}, team_id, 'lead.created', seq, ${now} FROM ins`;
      const [row] = await rowsOf<StoredRow>(tx, {
        text: `SELECT ${STORED_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id
          WHERE l.team_id = $1 AND l.seq = $2`,
        params: [lead.teamId, seq],
      });
      return { kind: 'created', lead: toStoredLead(row!) };
    })) as CreateResult;
  }
}

/**
 * A random v1 id (lead-id.ts) that none of the member's leads has; the lookup is a prefix of
 * leads_identity. Two transactions drawing the same one of 2^53 ids for one member at one
 * instant would meet leads_identity's unique violation: a chance not worth a lock.
 */
async function freeLeadId(tx: TransactionSql, lead: NewLead): Promise<string> {
  for (let i = 0; i < LEAD_ID_DRAWS; i++) {
    const id = leadIds.draw();
    const taken = await tx`SELECT 1 FROM leads
      WHERE team_id = ${lead.teamId} AND member_id = ${lead.memberId} AND lead_id = ${id} LIMIT 1`;
    if (taken.length === 0) return id;
  }
  throw leadIdExhausted();
}

async function rowsOf<R = LeadRow>(sql: Sql | TransactionSql, query: Query): Promise<R[]> {
  return (await sql.unsafe(query.text, query.params as never[]).values()) as unknown as R[];
}

/**
 * Claims the key for the lead about to be stored (`uuid`); when the key is already claimed (by a
 * transaction that committed, possibly while this one waited on it), that earlier claim instead.
 */
async function claimOrEarlier(
  tx: TransactionSql,
  claim: IdempotencyClaim,
  uuid: string,
): Promise<{ bodyHash: string; leadUuid: string } | null> {
  await tx`DELETE FROM idempotency_keys WHERE key_id = ${claim.keyId} AND key = ${claim.key}
    AND created_at < ${claim.at - IDEMPOTENCY_TTL_MS}`;
  const claimed = await tx`INSERT INTO idempotency_keys (key_id, key, body_hash, lead_uuid, created_at)
    VALUES (${claim.keyId}, ${claim.key}, ${claim.bodyHash}, ${uuid}, ${claim.at})
    ON CONFLICT DO NOTHING RETURNING key_id`;
  if (claimed.length === 1) return null;
  const [earlier] = await tx<{ body_hash: string; lead_uuid: string }[]>`SELECT body_hash, lead_uuid::text
    FROM idempotency_keys WHERE key_id = ${claim.keyId} AND key = ${claim.key}`;
  if (earlier === undefined) throw new Error(`idempotency key ${claim.key}: claimed but not found`);
  return { bodyHash: earlier.body_hash, leadUuid: earlier.lead_uuid };
}
