import type { Sql } from 'postgres';
import type { Lead } from '../../domain/lead.js';
import { LEAD_COLUMNS, type LeadRow, NO_END, toLead } from '../rows.js';
import type { EpochRange, LeadStore, RangeScope } from '../store.js';

/** The read queries; the same shapes as on SQLite, every one an index walk leading with team_id. */
export const PG_LEAD_QUERIES = {
  lastOfMember: `SELECT ${LEAD_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id
    WHERE l.team_id = $1 AND l.member_id = $2 ORDER BY l.epoch DESC, l.seq DESC LIMIT 1`,
  lastOfTeam: `SELECT ${LEAD_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id
    WHERE l.team_id = $1 ORDER BY l.epoch DESC, l.seq DESC LIMIT 1`,
  // One index seek per current member of the subteam (LATERAL), never a walk over the team's leads.
  lastOfSubteam: `SELECT ${LEAD_COLUMNS} FROM subteam_members sm
    CROSS JOIN LATERAL (SELECT * FROM leads l2 WHERE l2.team_id = sm.team_id AND l2.member_id = sm.member_id
      ORDER BY l2.epoch DESC, l2.seq DESC LIMIT 1) l
    JOIN members m ON m.id = l.member_id
    WHERE sm.team_id = $1 AND sm.subteam_id = $2 AND sm.is_member
    ORDER BY l.epoch DESC, l.seq DESC LIMIT 1`,
  memberRange: `SELECT ${LEAD_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id
    WHERE l.team_id = $1 AND l.member_id = $2 AND (l.epoch, l.seq) > ($3, $4) AND l.epoch < $5
    ORDER BY l.epoch, l.seq LIMIT $6`,
  teamRange: `SELECT ${LEAD_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id
    WHERE l.team_id = $1 AND (l.epoch, l.seq) > ($2, $3) AND l.epoch < $4
    ORDER BY l.epoch, l.seq LIMIT $5`,
};

export class PostgresLeadStore implements LeadStore {
  /** `reads` names the pool for each read: the primary, or a replica fresh enough. */
  constructor(private readonly reads: () => Sql) {}

  private async one(query: string, params: number[]): Promise<Lead | null> {
    const rows = (await this.reads()
      .unsafe(query, params, { prepare: true })
      .values()) as unknown as LeadRow[];
    return rows[0] === undefined ? null : toLead(rows[0]);
  }

  lastOfMember(teamId: number, memberId: number): Promise<Lead | null> {
    return this.one(PG_LEAD_QUERIES.lastOfMember, [teamId, memberId]);
  }

  lastOfTeam(teamId: number): Promise<Lead | null> {
    return this.one(PG_LEAD_QUERIES.lastOfTeam, [teamId]);
  }

  lastOfSubteam(teamId: number, subteamId: number): Promise<Lead | null> {
    return this.one(PG_LEAD_QUERIES.lastOfSubteam, [teamId, subteamId]);
  }

  /** Keyset batches, each its own short query: no cursor or connection held between them. */
  async *range(scope: RangeScope, range: EpochRange, batchSize: number): AsyncIterable<Lead[]> {
    const end = range.end ?? NO_END;
    let afterEpoch = range.start;
    let afterSeq = 0;
    for (;;) {
      const sql = this.reads();
      const rows = (await (scope.memberId === undefined
        ? sql.unsafe(PG_LEAD_QUERIES.teamRange, [scope.teamId, afterEpoch, afterSeq, end, batchSize], {
            prepare: true,
          })
        : sql.unsafe(
            PG_LEAD_QUERIES.memberRange,
            [scope.teamId, scope.memberId, afterEpoch, afterSeq, end, batchSize],
            { prepare: true },
          )
      ).values()) as unknown as LeadRow[];
      if (rows.length === 0) return;
      const batch = rows.map(toLead);
      const last = batch[batch.length - 1]!;
      afterEpoch = last.epoch;
      afterSeq = last.seq;
      yield batch;
      if (rows.length < batchSize) return;
    }
  }
}
