// Longer than the ~250 lines most files keep to: one transaction's writer (ImportWriter) and the
// COPY batch encoding it needs, kept together because the encoding is only correct for the
// statements beside it.
import type { TransactionSql } from 'postgres';
import type { Member, Subteam, Team } from '../../directory/directory.js';
import type { ImportedLeads, ImportWriter, StagedRecord } from '../../import/import.port.js';
import type { Collector, NewLead } from '../../leads/leads.port.js';
import { foldedText } from '../../leads/text.js';
import { uuid7s } from '../../shared/uuid7.js';
import { type PgMemberRow, pgToMember } from './directory.js';
import { searchText, textColumns } from './text.js';

const STAGE_BATCH = 1000;

/** First key of the advisory lock an import holds (start); the second is its store's `leads`. */
const IMPORT_LOCK = 747_183;

/** A stored lead's values (`l`) as a change's JSON (LeadValues, endpoint-rows.ts eventData). */
const VALUES_JSON = `json_build_object('time', l.time, 'userPid', l.user_pid, 'kind', l.kind,
  'locationShared', l.location_shared, 'lat', l.lat, 'long', l.long, 'fields', l.fields, 'source', l.source,
  'firstName', l.first_name, 'lastName', l.last_name)`;

/** Between a batch column's values, and standing for SQL NULL (`column`): control characters. */
const BETWEEN = '\x1f';
const NULL_VALUE = '\x1e';

type ColumnType = 'bigint' | 'text' | 'boolean' | 'uuid';
type ColumnValue = string | number | boolean | null;

/** How many times `char` occurs in `text`. */
function occurrences(text: string, char: string): number {
  let n = 0;
  for (let i = text.indexOf(char); i !== -1; i = text.indexOf(char, i + 1)) n++;
  return n;
}

/**
 * One column of a batch as an SQL array of `type`: its values joined into one text parameter
 * that the server splits (`string_to_array`), which costs the import's thread less than
 * postgres.js's array literal — every string escaped and quoted — and the server no more
 * (bench/misses.md, "P5 with a worker thread"). A text column with a value holding either
 * separator (more of them in the joined text than it put there), or one that joins to '' (a
 * single empty string, which would split into no element at all), goes as an array literal.
 */
function column(tx: TransactionSql, type: ColumnType, values: ColumnValue[]) {
  let nulls = 0;
  const joined = values
    .map((v) => {
      if (v === null) {
        nulls++;
        return NULL_VALUE;
      }
      return typeof v === 'string' ? v : v === true ? 't' : v === false ? 'f' : String(v);
    })
    .join(BETWEEN);
  if (
    joined === '' ||
    (type === 'text' &&
      (occurrences(joined, BETWEEN) !== values.length - 1 || occurrences(joined, NULL_VALUE) !== nulls))
  )
    return tx`${tx.array(values)}::${tx.unsafe(type)}[]`;
  return tx`string_to_array(${joined}::text, chr(31), chr(30))::${tx.unsafe(type)}[]`;
}

/**
 * One import inside one transaction. Leads go straight into `leads` a batch at a time, in file
 * order: sequence numbers drawn in that order, a lead with the identity of a stored one (or of
 * one earlier in the import) updated in place — its last values win, its first position counts.
 * A new lead of a team with a webhook endpoint gets its `lead.created` event in the same statement.
 *
 * A batch is sent without waiting for the one before it: postgres.js queues the statements on the
 * transaction's connection and the server runs them in order, so the server writes one batch
 * while the next is read, checked and mapped. A statement that fails aborts the transaction; the
 * import learns it at the next batch or at the end, and rolls back.
 */
export class PostgresImportWriter implements ImportWriter {
  readonly storesPaddedWords = false;
  private readonly now = Date.now();
  private newLeads = 0;
  private changed = 0;
  /** The batch the server may still be writing. */
  private inFlight: Promise<void> | null = null;

  private constructor(private readonly tx: TransactionSql) {}

  static async start(tx: TransactionSql): Promise<PostgresImportWriter> {
    // An import may run longer than the statement timeout that protects requests.
    await tx`SET LOCAL statement_timeout = 0`;
    // Imports into one store take turns, as on SQLite (its writer holds the file): a second one
    // waits for the first to end, then finds its leads stored. Keyed by this store's `leads`
    // table, so stores in other schemas of the database import at the same time.
    await tx`SELECT pg_advisory_xact_lock(${IMPORT_LOCK}, 'leads'::regclass::oid::int)`;
    await tx.unsafe(
      'CREATE TEMP TABLE import_staged (ordinal bigint PRIMARY KEY, source text, text text) ON COMMIT DROP',
    );
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

  async upsertMembers(members: Member[]): Promise<void> {
    if (members.length === 0) return;
    const a = (pick: (m: Member) => string | number | null) => this.tx.array(members.map(pick));
    // In a savepoint, so a member that cannot be written (an e-mail another member has) leaves
    // the import able to write them one at a time and name it. The members as they were stored,
    // the upsert in file order, and the move of the leads of those who changed team
    // (upsertMember) in one statement: every part of it reads the store as it was before.
    await this.tx.savepoint(
      (sp) => sp`WITH u AS (
          SELECT * FROM unnest(${a((m) => m.id)}::bigint[], ${a((m) => m.teamId)}::bigint[],
            ${a((m) => m.email)}::text[], ${a((m) => m.name)}::text[], ${a((m) => m.role)}::text[],
            ${a((m) => m.pid)}::text[])
          WITH ORDINALITY AS u(id, team_id, email, name, role, pid, ord)
        ), before AS (
          SELECT m.id, m.team_id FROM members m JOIN u ON u.id = m.id
        ), written AS (
          INSERT INTO members (id, team_id, email, name, role, pid)
          SELECT id, team_id, email, name, role, pid FROM u ORDER BY ord
          ON CONFLICT (id) DO UPDATE SET team_id = EXCLUDED.team_id, email = EXCLUDED.email,
            name = EXCLUDED.name, role = EXCLUDED.role, pid = EXCLUDED.pid
          RETURNING id, team_id
        )
        UPDATE leads l SET team_id = w.team_id FROM before b JOIN written w ON w.id = b.id
        WHERE b.team_id <> w.team_id AND l.team_id = b.team_id AND l.member_id = b.id`,
    );
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

  async teams(ids: readonly number[]): Promise<Map<number, Team>> {
    const rows = await this.tx<{ id: number; name: string; time_zone: string }[]>`SELECT id, name, time_zone
      FROM teams WHERE id = ANY(${this.tx.array([...ids])}::bigint[])`;
    return new Map(rows.map((r) => [r.id, { id: r.id, name: r.name, timeZone: r.time_zone }]));
  }

  async members(ids: readonly number[]): Promise<Map<number, Member>> {
    const rows = await this.tx<PgMemberRow[]>`SELECT id, team_id, email, name, role, pid FROM members
      WHERE id = ANY(${this.tx.array([...ids])}::bigint[])`;
    return new Map(rows.map((r) => [r.id, pgToMember(r)]));
  }

  async collectors(memberIds: readonly number[]): Promise<Map<number, Collector>> {
    const rows = await this.tx<
      { id: number; team_id: number; email: string; pid: string | null; time_zone: string }[]
    >`SELECT m.id, m.team_id, m.email, m.pid, t.time_zone FROM members m JOIN teams t ON t.id = m.team_id
      WHERE m.id = ANY(${this.tx.array([...memberIds])}::bigint[])`;
    return new Map(
      rows.map((r) => [r.id, { teamId: r.team_id, email: r.email, pid: r.pid, timeZone: r.time_zone }]),
    );
  }

  async insertLeads(batch: NewLead[]): Promise<void> {
    // One statement cannot update a row twice: a lead that comes twice in the batch is one row,
    // at its first position with its last values.
    const at = new Map<string, number>();
    const leads: NewLead[] = [];
    for (const l of batch) {
      const identity = `${l.teamId} ${l.memberId} ${l.epoch} ${l.id}`;
      const i = at.get(identity);
      if (i === undefined) {
        at.set(identity, leads.length);
        leads.push(l);
      } else leads[i] = l;
    }
    const c = (type: ColumnType, pick: (l: NewLead) => ColumnValue) => column(this.tx, type, leads.map(pick));
    const texts = leads.map(foldedText);
    // Joined once, used twice: the leads' own column and the key their events are joined on.
    const uuids = column(this.tx, 'uuid', uuid7s(leads.length, this.now));
    const eventIds = uuid7s(leads.length, this.now);
    const [f1, f2, f3, f4, f5, f6, f7] = textColumns(texts).map((t) => column(this.tx, 'text', t));
    // One statement per batch, its columns as arrays. Not COPY: postgres.js 3.4 never settles a
    // COPY the server refuses (its stream is dropped before the error arrives), so a bad batch or
    // a lost connection would hang the import instead of failing it.
    // `old`: the stored leads with a batch lead's identity, as they were before the statement
    // (every part of one statement reads the same snapshot). The others are inserted with a
    // plain INSERT: `ON CONFLICT` costs a speculative insertion a row (~10 % more of the server's
    // time, bench/RESULTS.md "P5 on PostgreSQL: the import's rows cheaper"), and imports of one
    // store take turns (start), so no other import writes an identity meanwhile. The stored ones
    // are updated when their values differ, with the events of those changed.
    const written = this.tx<{ created: number; changed: number }[]>`WITH u AS (
        SELECT * FROM unnest(${c('bigint', (l) => l.teamId)}, ${c('bigint', (l) => l.memberId)},
            ${c('text', (l) => l.id)}, ${c('bigint', (l) => l.epoch)}, ${c('text', (l) => l.time)},
            ${c('text', (l) => l.userPid)}, ${c('text', (l) => l.kind)}, ${c('boolean', (l) => l.locationShared)},
            ${c('text', (l) => l.lat)}, ${c('text', (l) => l.long)}, ${c('text', (l) => l.fields)},
            ${uuids}, ${c('text', (l) => l.source)}, ${c('boolean', (l) => l.hasEmail)},
            ${c('text', (l) => l.firstName)}, ${c('text', (l) => l.lastName)}, ${f1!}, ${f2!}, ${f3!}, ${f4!},
            ${f5!}, ${f6!}, ${f7!}, ${column(this.tx, 'text', texts.map(searchText))}, ${column(this.tx, 'uuid', eventIds)})
          WITH ORDINALITY AS u(team_id, member_id, lead_id, epoch, time, user_pid, kind, location_shared, lat,
            long, fields, uuid, source, has_email, first_name, last_name, f1, f2, f3, f4, f5, f6, f7, search,
            event_id, ord)
      ), old AS (
        SELECT l.seq, l.team_id, l.txid, u.ord, ${this.tx.unsafe(VALUES_JSON)} AS before FROM leads l
        JOIN u ON l.team_id = u.team_id AND l.member_id = u.member_id AND l.lead_id = u.lead_id AND l.epoch = u.epoch
      ), ins AS (
        INSERT INTO leads (team_id, seq, member_id, lead_id, epoch, time, user_pid, kind, location_shared,
          lat, long, fields, uuid, created_at, source, has_email, first_name, last_name, text_fields, search)
        SELECT team_id, nextval('leads_seq'), member_id, lead_id, epoch, time, user_pid, kind, location_shared,
          lat, long, fields, uuid, ${this.now}, source, has_email, first_name, last_name,
          ARRAY[f1, f2, f3, f4, f5, f6, f7], search
        FROM u WHERE NOT EXISTS (SELECT FROM old WHERE old.ord = u.ord) ORDER BY ord
        RETURNING team_id, seq, uuid
      ), upd AS (
        -- A stored lead whose values differ is changed: its values, its place in the feed (this
        -- transaction's txid), its version. Already written by this import (its txid is this
        -- transaction's): its last values win, its version stays. Merged or the same: left alone.
        UPDATE leads SET time = u.time, user_pid = u.user_pid, kind = u.kind,
          location_shared = u.location_shared, lat = u.lat, long = u.long, fields = u.fields,
          source = u.source, has_email = u.has_email, first_name = u.first_name, last_name = u.last_name,
          text_fields = ARRAY[u.f1, u.f2, u.f3, u.f4, u.f5, u.f6, u.f7], search = u.search,
          version = leads.version + CASE WHEN leads.txid = pg_current_xact_id()::text::bigint THEN 0 ELSE 1 END,
          changed_via = CASE WHEN leads.txid = pg_current_xact_id()::text::bigint THEN leads.changed_via ELSE 'import' END,
          changed_at = CASE WHEN leads.txid = pg_current_xact_id()::text::bigint THEN leads.changed_at ELSE ${this.now} END,
          txid = pg_current_xact_id()::text::bigint
        FROM old JOIN u ON u.ord = old.ord
        WHERE leads.team_id = old.team_id AND leads.seq = old.seq
          AND leads.merged_into IS NULL AND leads.erased_at IS NULL AND (leads.time, leads.user_pid, leads.kind,
            leads.location_shared, leads.lat, leads.long, leads.fields, leads.source, leads.first_name, leads.last_name)
          IS DISTINCT FROM (u.time, u.user_pid, u.kind, u.location_shared, u.lat, u.long, u.fields, u.source,
            u.first_name, u.last_name)
        RETURNING leads.team_id, leads.seq, leads.version, old.txid AS was, u.event_id, old.before,
          ${this.tx.unsafe(VALUES_JSON.replaceAll('l.', 'leads.'))} AS after
      ), changed AS (
        -- A lead this import wrote before (its txid is this transaction's) gets no second event.
        SELECT * FROM upd WHERE was <> pg_current_xact_id()::text::bigint
      ), created_events AS (
        -- A new lead's lead.created event, in this transaction (the event log: docs/v2.md "Events").
        INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at)
        SELECT u.event_id, ins.team_id, 'lead.created', ins.seq, ${this.now}
        FROM ins JOIN u ON u.uuid = ins.uuid
        ORDER BY ins.seq
      ), changed_events AS (
        INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at, data)
        -- The record's event id: a record makes one event, lead.created or lead.updated.
        SELECT event_id, team_id, 'lead.updated', seq, ${this.now},
          json_build_object('source', 'import', 'before', before, 'after', after, 'version', version)::text
        FROM changed
        ORDER BY seq
      )
      SELECT (SELECT count(*) FROM ins)::int AS created,
        (SELECT count(*) FROM changed)::int AS changed`.then(([row]) => {
      this.newLeads += row?.created ?? 0;
      this.changed += row?.changed ?? 0;
    });
    // Handled here so a batch failing after the import already failed for another reason is no
    // unhandled rejection; awaited below or in finishLeads, where its error fails the import.
    written.catch(() => {});
    const previous = this.inFlight;
    this.inFlight = written;
    await previous;
  }

  async finishLeads(): Promise<ImportedLeads> {
    await this.inFlight;
    this.inFlight = null;
    return { created: this.newLeads, changed: this.changed };
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
