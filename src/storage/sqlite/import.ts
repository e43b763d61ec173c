// Longer than the ~250 lines most files keep to: one import transaction's writer (ImportWriter) —
// inserts, changes with their announcements, directory rows — kept together because its
// statements share one prepared set and one transaction.
import type Database from 'better-sqlite3';
import type { Member, Subteam, Team } from '../../directory/directory.js';
import type { ImportedLeads, ImportWriter, StagedRecord } from '../../import/import.port.js';
import { sameValues, valuesOf } from '../../leads/lead-change.js';
import type { Collector, LeadValues, NewLead } from '../../leads/leads.port.js';
import { uuid7s } from '../../shared/uuid7.js';
import { eventData } from '../endpoint-rows.js';
import { STORED_COLUMNS, type StoredRow, toStoredLead } from '../rows.js';
import { FeedClock } from './changes.js';
import { toMember } from './directory.js';
import {
  DELETE_LEAD_TEXT,
  INSERT_LEAD_TEXT,
  LEAD_INSERT,
  leadTextValues,
  leadValues,
} from './lead-writes.js';
import { INSERT_LEAD_CREATED } from './webhooks.js';

const STAGE_BATCH = 1000;

/**
 * Writes one import inside the transaction the store opened. A new lead's `seq` is assigned on
 * insert (the highest so far plus one), so storage order is the order leads are handed over;
 * its feed position is drawn from the feed clock (changes.ts). Each new lead of a team with a
 * webhook endpoint gets its `lead.created` event in the same transaction. A stored lead loaded
 * with other values is a change (import.port.ts): new values, version and feed position, and
 * a `lead.updated` event; loaded with the same values, or merged, it is left alone.
 */
export class SqliteImportWriter implements ImportWriter {
  readonly storesPaddedWords = true;
  private maxSeq: number;
  private newLeads = 0;
  private changed = 0;
  /** Stored leads this import changed: a second change in the same import is not another. */
  private readonly changedNow = new Set<number>();
  private readonly clock: FeedClock;
  private readonly now = Date.now();
  private readonly stmts;
  /**
   * Whether a team takes webhook events of a type (`team type`): its endpoints cannot change
   * while the import holds the write lock.
   */

  /** Runs a function in a savepoint of the import's transaction: all of it, or none. */
  private readonly inSavepoint: <T>(work: () => T) => T;

  constructor(db: Database.Database) {
    // better-sqlite3 makes a transaction function opened inside a transaction a savepoint.
    this.inSavepoint = <T>(work: () => T) => db.transaction(work)();
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS import_staged (
      ordinal INTEGER PRIMARY KEY, source TEXT NOT NULL, text TEXT NOT NULL);
      DELETE FROM temp.import_staged;`);
    this.clock = new FeedClock(db);
    this.maxSeq = (db.prepare('SELECT coalesce(max(seq), 0) AS s FROM leads').get() as { s: number }).s;
    this.stmts = {
      upsertTeam: db.prepare(`INSERT INTO teams (id, name, time_zone) VALUES (?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET name = excluded.name, time_zone = excluded.time_zone`),
      team: db.prepare('SELECT id, name, time_zone FROM teams WHERE id = ?'),
      memberTeam: db.prepare('SELECT team_id FROM members WHERE id = ?'),
      upsertMember:
        db.prepare(`INSERT INTO members (id, team_id, email, name, role, pid) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET team_id = excluded.team_id, email = excluded.email,
          name = excluded.name, role = excluded.role, pid = excluded.pid`),
      moveLeads: db.prepare('UPDATE leads SET team_id = ? WHERE member_id = ?'),
      member: db.prepare('SELECT id, team_id, email, name, role, pid FROM members WHERE id = ?'),
      collector: db.prepare(`SELECT m.team_id, m.email, m.pid, t.time_zone FROM members m
        JOIN teams t ON t.id = m.team_id WHERE m.id = ?`),
      upsertSubteam: db.prepare(`INSERT INTO subteams (id, team_id, name) VALUES (?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET team_id = excluded.team_id, name = excluded.name`),
      clearSubteam: db.prepare('DELETE FROM subteam_members WHERE subteam_id = ?'),
      addSubteamMember: db.prepare(
        'INSERT INTO subteam_members (team_id, subteam_id, member_id, is_member, is_admin) VALUES (?, ?, ?, ?, ?)',
      ),
      // The common case, a lead not stored yet: a plain insert, ~25 % cheaper in SQLite than the
      // upsert. It skips the row on any violation (changes = 0); the upsert then replaces the
      // stored lead, or fails with the real reason.
      insertLead: db.prepare(LEAD_INSERT.replace(/^INSERT/, 'INSERT OR IGNORE')),
      // The stored lead with the identity of one the insert skipped: changed when its values differ.
      stored: db
        .prepare(`SELECT ${STORED_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id
          WHERE l.team_id = ? AND l.member_id = ? AND l.lead_id = ? AND l.epoch = ?`)
        .raw(true),
      // A change: a new place and version; a lead already written by this import keeps both.
      change: db.prepare(`UPDATE leads SET time = ?, user_pid = ?, kind = ?, location_shared = ?, lat = ?,
          long = ?, fields = ?, source = ?, has_email = ?, first_name = ?, last_name = ?,
          pos = coalesce(?, pos), version = version + ?,
          changed_via = CASE WHEN ? THEN 'import' ELSE changed_via END,
          changed_at = CASE WHEN ? THEN ? ELSE changed_at END
        WHERE seq = ?`),
      insertChange: db.prepare(`INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at, data)
        VALUES (?, ?, 'lead.updated', ?, ?, ?)`),
      insertText: db.prepare(INSERT_LEAD_TEXT),
      insertEvent: db.prepare(INSERT_LEAD_CREATED),
      deleteText: db.prepare(DELETE_LEAD_TEXT),
      stage: db.prepare('INSERT INTO temp.import_staged (ordinal, source, text) VALUES (?, ?, ?)'),
      staged: db.prepare(
        'SELECT ordinal, source, text FROM temp.import_staged WHERE ordinal > ? ORDER BY ordinal LIMIT ?',
      ),
    };
  }

  async upsertTeam(team: Team): Promise<void> {
    this.stmts.upsertTeam.run(team.id, team.name, team.timeZone);
  }

  async upsertMember(m: Member): Promise<void> {
    this.writeMember(m);
  }

  private writeMember(m: Member): void {
    const before = this.stmts.memberTeam.get(m.id) as { team_id: number } | undefined;
    this.stmts.upsertMember.run(m.id, m.teamId, m.email, m.name, m.role, m.pid);
    // A team's leads are those of its members: a member who moves takes their leads along.
    if (before !== undefined && before.team_id !== m.teamId) this.stmts.moveLeads.run(m.teamId, m.id);
  }

  async upsertMembers(members: Member[]): Promise<void> {
    // One statement a member costs SQLite no round trip; the savepoint keeps it all or nothing.
    this.inSavepoint(() => {
      for (const m of members) this.writeMember(m);
    });
  }

  async upsertSubteam(s: Subteam): Promise<void> {
    this.stmts.upsertSubteam.run(s.id, s.teamId, s.name);
    this.stmts.clearSubteam.run(s.id);
    const admins = new Set(s.admins);
    const members = new Set(s.members);
    for (const id of new Set([...s.members, ...s.admins])) {
      this.stmts.addSubteamMember.run(s.teamId, s.id, id, members.has(id) ? 1 : 0, admins.has(id) ? 1 : 0);
    }
  }

  async teams(ids: readonly number[]): Promise<Map<number, Team>> {
    const found = new Map<number, Team>();
    for (const id of ids) {
      const r = this.stmts.team.get(id) as { id: number; name: string; time_zone: string } | undefined;
      if (r !== undefined) found.set(id, { id: r.id, name: r.name, timeZone: r.time_zone });
    }
    return found;
  }

  async members(ids: readonly number[]): Promise<Map<number, Member>> {
    const found = new Map<number, Member>();
    for (const id of ids) {
      const r = this.stmts.member.get(id) as Parameters<typeof toMember>[0] | undefined;
      if (r !== undefined) found.set(id, toMember(r));
    }
    return found;
  }

  async collectors(memberIds: readonly number[]): Promise<Map<number, Collector>> {
    const found = new Map<number, Collector>();
    for (const id of memberIds) {
      const r = this.stmts.collector.get(id) as
        | { team_id: number; email: string; pid: string | null; time_zone: string }
        | undefined;
      if (r !== undefined)
        found.set(id, { teamId: r.team_id, email: r.email, pid: r.pid, timeZone: r.time_zone });
    }
    return found;
  }

  async insertLeads(leads: NewLead[]): Promise<void> {
    // The batch's leads first, then their lead_text rows: with a lead write between every two
    // lead_text inserts the SQL of an import took about twice the CPU (13.5 s against 6.9 s for
    // 100k leads, measured for the P5 work).
    const before = this.maxSeq;
    const seqs: (number | null)[] = new Array(leads.length);
    /**
     * The batch's events in the order they happen — `lead.created` (no data) or `lead.updated`
     * (its change) — written after its leads: a statement per table in turn, not an event
     * between every two leads.
     */
    const events: { teamId: number; seq: number; data: string | null }[] = [];
    let inOrder = true;
    let pos = this.clock.last();
    const uuids = uuid7s(leads.length, this.now);
    for (let i = 0; i < leads.length; i++) {
      const l = leads[i]!;
      if (l.id === null) throw new Error('an imported lead carries its v1 id');
      const values = leadValues(l, l.id, uuids[i]!, this.now, pos + 1);
      const inserted = this.stmts.insertLead.run(values);
      if (inserted.changes === 1) {
        const seq = Number(inserted.lastInsertRowid);
        pos++;
        this.maxSeq = seq;
        this.newLeads++;
        events.push({ teamId: l.teamId, seq, data: null });
        seqs[i] = seq;
        continue;
      }
      inOrder = false;
      const stored = this.stmts.stored.get(l.teamId, l.memberId, l.id, l.epoch) as StoredRow | undefined;
      if (stored === undefined) {
        this.stmts.insertLead.run(values); // not a conflict of identity: fails with the real reason
        throw new Error(`lead ${l.id} could not be stored`);
      }
      const lead = toStoredLead(stored);
      const after = newValues(l);
      seqs[i] = null;
      if (lead.mergedInto !== null || lead.erased || sameValues(valuesOf(lead), after)) continue;
      // Stored earlier in this import: its last values win, its first place and event stand.
      const earlier = lead.seq > before || this.changedNow.has(lead.seq);
      if (!earlier) {
        pos++;
        this.changedNow.add(lead.seq);
        this.changed++;
      }
      this.stmts.change.run(
        after.time,
        after.userPid,
        after.kind,
        after.locationShared ? 1 : 0,
        after.lat,
        after.long,
        after.fields,
        after.source,
        l.hasEmail ? 1 : 0,
        after.firstName,
        after.lastName,
        earlier ? null : pos,
        earlier ? 0 : 1,
        earlier ? 0 : 1,
        earlier ? 0 : 1,
        this.now,
        lead.seq,
      );
      if (!earlier) {
        const data = eventData({
          source: 'import',
          before: valuesOf(lead),
          after,
          version: lead.version + 1,
        });
        events.push({ teamId: l.teamId, seq: lead.seq, data });
      }
      seqs[i] = lead.seq;
    }
    this.clock.advance(pos);
    const ids = uuid7s(events.length, this.now);
    for (let k = 0; k < events.length; k++) {
      const e = events[k]!;
      if (e.data === null) this.stmts.insertEvent.run(ids[k], e.teamId, e.seq, this.now);
      else this.stmts.insertChange.run(ids[k], e.teamId, e.seq, this.now, e.data);
    }
    if (inOrder) {
      for (let i = 0; i < leads.length; i++) this.stmts.insertText.run(leadTextValues(seqs[i]!, leads[i]!));
      return;
    }
    // Some leads changed stored ones, or one lead came twice: its last values win. Old rows go
    // first, then the new ones, each in rowid order, so FTS5 flushes its pending terms twice
    // instead of once a changed lead. A lead left as it was (null) keeps its text.
    const last = new Map<number, NewLead>();
    for (let i = 0; i < leads.length; i++) if (seqs[i] !== null) last.set(seqs[i]!, leads[i]!);
    const order = [...last.keys()].sort((a, b) => a - b);
    for (const seq of order) if (seq <= before || this.changedNow.has(seq)) this.stmts.deleteText.run(seq);
    for (const seq of order) this.stmts.insertText.run(leadTextValues(seq, last.get(seq)!));
  }

  async finishLeads(): Promise<ImportedLeads> {
    return { created: this.newLeads, changed: this.changed };
  }

  async stage(r: StagedRecord): Promise<void> {
    this.stmts.stage.run(r.ordinal, r.source, r.text);
  }

  async *staged(): AsyncIterable<StagedRecord[]> {
    let after = -1;
    for (;;) {
      const rows = this.stmts.staged.all(after, STAGE_BATCH) as StagedRecord[];
      if (rows.length === 0) return;
      after = rows[rows.length - 1]!.ordinal;
      yield rows;
    }
  }
}

/** An imported lead's values, as a change compares and stores them. */
function newValues(l: NewLead): LeadValues {
  return {
    time: l.time,
    userPid: l.userPid,
    kind: l.kind,
    locationShared: l.locationShared,
    lat: l.lat,
    long: l.long,
    fields: l.fields,
    source: l.source,
    firstName: l.firstName,
    lastName: l.lastName,
  };
}
