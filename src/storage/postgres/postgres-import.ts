import type { TransactionSql } from 'postgres';
import type { Member, Subteam, Team } from '../../domain/directory.js';
import { uuid7 } from '../../domain/uuid7.js';
import type { Collector, ImportWriter, NewLead, StagedRecord } from '../store.js';
import { type PgMemberRow, pgToMember } from './postgres-directory.js';
import { hasEmail, searchText, textColumns } from './postgres-text.js';

const STAGE_BATCH = 1000;
const LEAD_COLUMNS =
  'ord, team_id, member_id, lead_id, epoch, time, user_pid, kind, location_shared, lat, long, fields, uuid, ' +
  'source, has_email, first_name, last_name, text_fields, search';

/**
 * One import inside one transaction. Leads go into a temporary table a batch at a time, then
 * move into `leads` in one statement at the end: deduplicated by identity (the last values win,
 * the first position counts), sequence numbers drawn in file order, existing leads updated in place.
 */
export class PostgresImportWriter implements ImportWriter {
  private ord = 0;

  private constructor(private readonly tx: TransactionSql) {}

  static async start(tx: TransactionSql): Promise<PostgresImportWriter> {
    // An import may run longer than the statement timeout that protects requests.
    await tx`SET LOCAL statement_timeout = 0`;
    await tx.unsafe(`CREATE TEMP TABLE import_leads (
        ord bigint, team_id bigint, member_id bigint, lead_id text, epoch bigint, time text, user_pid text,
        kind text, location_shared boolean, lat text, long text, fields text, uuid uuid, source text,
        has_email boolean, first_name text, last_name text, text_fields text[], search text) ON COMMIT DROP;
      CREATE TEMP TABLE import_staged (ordinal bigint PRIMARY KEY, source text, text text) ON COMMIT DROP;`);
    return new PostgresImportWriter(tx);
  }

  async upsertTeam(team: Team): Promise<void> {
    await this.tx`INSERT INTO teams (id, name, time_zone) VALUES (${team.id}, ${team.name}, ${team.timeZone})
      ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, time_zone = EXCLUDED.time_zone`;
  }

  async upsertMember(m: Member): Promise<void> {
    const [before] = await this.tx<{ team_id: number }[]>`SELECT team_id FROM members WHERE id = ${m.id}`;
    await this.tx`INSERT INTO members (id, team_id, email, name, role, pid)
      VALUES (${m.id}, ${m.teamId}, ${m.email}, ${m.name}, ${m.role}, ${m.pid})
      ON CONFLICT (id) DO UPDATE SET team_id = EXCLUDED.team_id, email = EXCLUDED.email, name = EXCLUDED.name,
        role = EXCLUDED.role, pid = EXCLUDED.pid`;
    // A team's leads are those of its members: a member who moves takes their leads along.
    if (before !== undefined && before.team_id !== m.teamId) {
      await this
        .tx`UPDATE leads SET team_id = ${m.teamId} WHERE team_id = ${before.team_id} AND member_id = ${m.id}`;
    }
  }

  async upsertSubteam(s: Subteam): Promise<void> {
    await this.tx`INSERT INTO subteams (id, team_id, name) VALUES (${s.id}, ${s.teamId}, ${s.name})
      ON CONFLICT (id) DO UPDATE SET team_id = EXCLUDED.team_id, name = EXCLUDED.name`;
    await this.tx`DELETE FROM subteam_members WHERE subteam_id = ${s.id}`;
    const members = new Set(s.members);
    const admins = new Set(s.admins);
    const rows = [...new Set([...s.members, ...s.admins])].map((id) => ({
      team_id: s.teamId,
      subteam_id: s.id,
      member_id: id,
      is_member: members.has(id),
      is_admin: admins.has(id),
    }));
    if (rows.length > 0) await this.tx`INSERT INTO subteam_members ${this.tx(rows)}`;
  }

  async team(id: number): Promise<Team | null> {
    const [r] = await this.tx<{ id: number; name: string; time_zone: string }[]>`SELECT id, name, time_zone
      FROM teams WHERE id = ${id}`;
    return r === undefined ? null : { id: r.id, name: r.name, timeZone: r.time_zone };
  }

  async member(id: number): Promise<Member | null> {
    const [r] = await this.tx<
      PgMemberRow[]
    >`SELECT id, team_id, email, name, role, pid FROM members WHERE id = ${id}`;
    return r === undefined ? null : pgToMember(r);
  }

  async collector(memberId: number): Promise<Collector | null> {
    const [r] = await this.tx<{ team_id: number; email: string; pid: string | null; time_zone: string }[]>`
      SELECT m.team_id, m.email, m.pid, t.time_zone FROM members m JOIN teams t ON t.id = m.team_id
      WHERE m.id = ${memberId}`;
    return r === undefined ? null : { teamId: r.team_id, email: r.email, pid: r.pid, timeZone: r.time_zone };
  }

  async insertLeads(leads: NewLead[]): Promise<void> {
    const now = Date.now();
    const col = <T>(pick: (l: NewLead) => T): T[] => leads.map(pick);
    const ords = leads.map(() => ++this.ord);
    // One statement per batch, its columns as arrays. Not COPY: postgres.js 3.4 never settles a
    // COPY the server refuses (its stream is dropped before the error arrives), so a bad batch or
    // a lost connection would hang the import instead of failing it.
    const a = (pick: (l: NewLead) => string | number | boolean | null) => this.tx.array(leads.map(pick));
    const texts = col((l) => l.text);
    const [f1, f2, f3, f4, f5, f6, f7] = textColumns(texts).map((c) => this.tx.array(c));
    // One statement per batch, its columns as arrays. Not COPY: postgres.js 3.4 never settles a
    // COPY the server refuses (its stream is dropped before the error arrives), so a bad batch or
    // a lost connection would hang the import instead of failing it.
    await this.tx`INSERT INTO import_leads (${this.tx.unsafe(LEAD_COLUMNS)})
      SELECT ord, team_id, member_id, lead_id, epoch, time, user_pid, kind, location_shared, lat, long, fields,
        uuid, source, has_email, first_name, last_name, ARRAY[f1, f2, f3, f4, f5, f6, f7], search
      FROM unnest(${this.tx.array(ords)}::bigint[], ${a((l) => l.teamId)}::bigint[],
        ${a((l) => l.memberId)}::bigint[], ${a((l) => l.id)}::text[], ${a((l) => l.epoch)}::bigint[],
        ${a((l) => l.time)}::text[], ${a((l) => l.userPid)}::text[], ${a((l) => l.kind)}::text[],
        ${a((l) => l.locationShared)}::boolean[], ${a((l) => l.lat)}::text[], ${a((l) => l.long)}::text[],
        ${a((l) => l.fields)}::text[], ${this.tx.array(col(() => uuid7(now)))}::uuid[], ${a((l) => l.source)}::text[],
        ${this.tx.array(texts.map(hasEmail))}::boolean[], ${a((l) => l.firstName)}::text[],
        ${a((l) => l.lastName)}::text[], ${f1!}::text[], ${f2!}::text[], ${f3!}::text[], ${f4!}::text[],
        ${f5!}::text[], ${f6!}::text[], ${f7!}::text[], ${this.tx.array(texts.map(searchText))}::text[])
        AS u(ord, team_id, member_id, lead_id, epoch, time, user_pid, kind, location_shared, lat, long, fields,
          uuid, source, has_email, first_name, last_name, f1, f2, f3, f4, f5, f6, f7, search)`;
  }

  async finishLeads(): Promise<number> {
    const [row] = await this.tx<{ n: number }[]>`WITH src AS (
        SELECT DISTINCT ON (team_id, member_id, lead_id, epoch) *,
          min(ord) OVER (PARTITION BY team_id, member_id, lead_id, epoch) AS first_ord
        FROM import_leads ORDER BY team_id, member_id, lead_id, epoch, ord DESC
      ), ins AS (
        INSERT INTO leads (team_id, seq, member_id, lead_id, epoch, time, user_pid, kind, location_shared,
          lat, long, fields, uuid, created_at, source, has_email, first_name, last_name, text_fields, search)
        SELECT team_id, nextval('leads_seq'), member_id, lead_id, epoch, time, user_pid, kind, location_shared,
          lat, long, fields, uuid, ${Date.now()}, source, has_email, first_name, last_name, text_fields, search
        FROM (SELECT * FROM src ORDER BY first_ord) o
        -- txid is left alone: a replaced lead keeps its place in the change feed too.
        ON CONFLICT (team_id, member_id, lead_id, epoch) DO UPDATE SET time = EXCLUDED.time,
          user_pid = EXCLUDED.user_pid, kind = EXCLUDED.kind, location_shared = EXCLUDED.location_shared,
          lat = EXCLUDED.lat, long = EXCLUDED.long, fields = EXCLUDED.fields, source = EXCLUDED.source,
          has_email = EXCLUDED.has_email, first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name,
          text_fields = EXCLUDED.text_fields, search = EXCLUDED.search
        RETURNING (xmax = 0) AS inserted
      )
      SELECT (count(*) FILTER (WHERE inserted))::int AS n FROM ins`;
    return row?.n ?? 0;
  }

  async stage(r: StagedRecord): Promise<void> {
    await this
      .tx`INSERT INTO import_staged (ordinal, source, text) VALUES (${r.ordinal}, ${r.source}, ${r.text})`;
  }

  async *staged(): AsyncIterable<StagedRecord[]> {
    let after = -1;
    for (;;) {
      const rows = await this.tx<StagedRecord[]>`SELECT ordinal, source, text FROM import_staged
        WHERE ordinal > ${after} ORDER BY ordinal LIMIT ${STAGE_BATCH}`;
      if (rows.length === 0) return;
      after = rows[rows.length - 1]!.ordinal;
      yield [...rows];
    }
  }
}
