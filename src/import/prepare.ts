// Longer than the ~250 lines most files keep to: every check and mapping of an import record that
// does not read the store, in the order the format states them (docs/import-format.md).
/**
 * The first half of an import: every check and every mapping a record needs that does not read
 * the store — JSON parsing, the record schemas, the capture-time bound, a lead's stored fields
 * and searchable text. It runs where the import decides (import-feed.ts): in the importing
 * thread for a small input, in a worker thread for a large one, so that one core prepares
 * records while the other writes them. The second half (import.ts) resolves each lead's
 * collector in the store, finishes the lead (`completeLead`) and writes it.
 */
import type { Static } from 'typebox';
import type { ImportConfig } from '../config.js';
import type { Member, Subteam, Team } from '../directory/directory.js';
import { COLUMN_MEMBERS, sourceFromV1Flags } from '../leads/lead.js';
import type { NewLead } from '../leads/leads.port.js';
import { hasEmail, leadText, paddedWords } from '../leads/text.js';
import { canonicalTimeZone, timeLabel } from '../leads/time-label.js';
import type { LeadRecord, MemberRecord, SubteamRecord, TeamRecord } from '../schemas/import-records.js';
import { checkLead, checkMember, checkSubteam, checkTeam } from '../schemas/record-checks.js';
import { captureTimeTooLate } from '../shared/instant.js';
import { findUnstorableText } from '../shared/storable-text.js';
import { ImportError } from './import-error.js';
import type { ImportLine } from './lines.js';
import type { RecordKind } from './record-fault.js';

/**
 * A lead record checked and mapped as far as it can be without its collector (the member who
 * gathered it, read from the store by the second half).
 */
export interface PreparedLead
  extends Pick<
    NewLead,
    'epoch' | 'kind' | 'locationShared' | 'lat' | 'long' | 'fields' | 'source' | 'text' | 'hasEmail'
  > {
  type: 'lead';
  /** Where the record came from, as `file:line`. */
  at: string;
  userId: number;
  userEmail: string | null;
  userPid: string | null;
  /**
   * A fault of the record found here but reported only after the collector's own checks (its
   * e-mail, its pid), so a record with several faults names the same one in either half.
   */
  fault: string | null;
  /** The record's v1 `id` (always given in an import). */
  id: string;
  /** The record's own `time`, or null: then the label in the collector's team time zone. */
  time: string | null;
  /** That label, computed here when this import named the member's team and its zone before. */
  label: { timeZone: string; time: string } | null;
  /** `text` padded for trigram search (NewLead `words`), sent instead of `text` to a store that wants them. */
  words: string[] | null;
}

/** One record, ready for the second half; `error` ends the import at `at`. */
export type PreparedRecord =
  | { type: 'team'; at: string; team: Team }
  | { type: 'member'; at: string; member: Member }
  | { type: 'subteam'; at: string; subteam: Subteam }
  | PreparedLead
  | { type: 'error'; at: string; reason: string }
  /**
   * A record that does not fit its schema (src/schemas/import-records.ts): the second half puts
   * its fault in words (import-record-fault.ts), which loads TypeBox only when a record is bad.
   */
  | { type: 'invalid'; at: string; record: RecordKind; value: unknown };

/** The records of some lines of the input, and how many bytes those lines held. */
export interface PreparedBatch {
  records: PreparedRecord[];
  bytes: number;
  /** Prepared in the worker thread (import-feed.ts), not in the importing one. */
  worker?: true;
}

/**
 * What preparing needs to know: the import's bounds, the time it started, and whether the store
 * wants each lead's padded words (ImportWriter `storesPaddedWords`).
 */
export type PrepareSettings = ImportConfig & { now: number; paddedWords: boolean };

type LeadInput = Static<typeof LeadRecord> & Record<string, unknown>;

/**
 * A record its check refuses, its fault put in words by the second half. The checks are plain
 * code made from the record schemas (src/schemas/record-checks.ts, `npm run record-checks`), so
 * preparing never loads TypeBox, whose load and compiling were most of a worker's start.
 */
const invalid = (record: RecordKind, value: unknown, at: string): PreparedRecord => ({
  type: 'invalid',
  at,
  record,
  value,
});

/** `null` members mean "no value" (v1 never emits null), so they are dropped before validation. */
function withoutNulls(record: Record<string, unknown>): Record<string, unknown> {
  for (const k of Object.keys(record)) if (record[k] === null) delete record[k];
  return record;
}

const NOT_IN_FIELDS = new Set<string>([...COLUMN_MEMBERS, 'type', 'locationShared']);

/** The record's own fault, if any, among those checked after its collector's (see `fault`). */
function leadFault(rec: LeadInput): string | null {
  if (rec.lat !== undefined && Math.abs(Number(rec.lat)) > 90) return 'lat must be within ±90';
  if (rec.long !== undefined && Math.abs(Number(rec.long)) > 180) return 'long must be within ±180';
  if ((rec.isLead === true) === (rec.isScan === true))
    return 'a lead carries exactly one of isLead: true (connection) or isScan: true (scan)';
  return null;
}

/** What preparing learns as it goes, to label a lead without `time`: team time zones, member teams. */
export interface Known {
  teamZones: Map<number, string>;
  memberTeams: Map<number, number>;
}

/**
 * Prepares records line by line, in input order. It remembers the time zones of the teams and
 * the teams of the members the import has named so far, to label a lead without `time` here;
 * the second half checks that guess against the store's answer.
 */
export class RecordPreparer {
  private failed = false;
  private readonly teamZones: Map<number, string>;
  private readonly memberTeams: Map<number, number>;

  /** `known`: what a preparer of the lines before learnt (`known` of the one that hands over). */
  constructor(
    private readonly settings: PrepareSettings,
    known: Known = { teamZones: new Map(), memberTeams: new Map() },
  ) {
    this.teamZones = known.teamZones;
    this.memberTeams = known.memberTeams;
  }

  /** The teams' time zones and the members' teams named so far. */
  get known(): Known {
    return { teamZones: this.teamZones, memberTeams: this.memberTeams };
  }

  /**
   * The records of `lines` from the input called `name`. The first bad record becomes an
   * `error` (or `invalid`) record and the last one: the second half reports it once every
   * record before it is written (one of those may fail first), and nothing after it is prepared.
   */
  lines(name: string, lines: ImportLine[]): PreparedBatch {
    const records: PreparedRecord[] = [];
    let bytes = 0;
    for (const line of lines) {
      bytes += line.bytes + 1;
      if (this.failed) continue;
      const at = `${name}:${line.lineNo}`;
      try {
        if (line.text === null) {
          throw new ImportError(
            at,
            `record is ${line.bytes} bytes; the limit is ${this.settings.importMaxRecordBytes} (LEADLINE_IMPORT_MAX_RECORD_BYTES)`,
          );
        }
        if (line.text.trim() === '') continue;
        const record = this.record(line.text, at);
        records.push(record);
        if (record.type === 'invalid') this.failed = true;
      } catch (err) {
        if (!(err instanceof ImportError)) throw err;
        this.failed = true;
        records.push({ type: 'error', at: err.source, reason: err.reason });
      }
    }
    return { records, bytes };
  }

  private record(text: string, at: string): PreparedRecord {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new ImportError(at, `invalid JSON: ${(err as Error).message}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ImportError(at, 'a record is a JSON object');
    }
    // JSON text holds NUL or a lone surrogate only as a \u escape (raw controls are not JSON, and
    // broken UTF-8 is read as U+FFFD): most records skip the walk.
    const unstorable = text.includes('\\u') ? findUnstorableText(value) : null;
    if (unstorable !== null) {
      const where = unstorable.path.length === 0 ? 'record' : unstorable.path.join('.');
      throw new ImportError(at, `${where} ${unstorable.reason}`);
    }
    const rec = withoutNulls(value as Record<string, unknown>);
    switch (rec.type) {
      case 'team': {
        if (!checkTeam(rec)) return invalid('team', rec, at);
        const t = rec as Static<typeof TeamRecord>;
        const timeZone = canonicalTimeZone(t.timeZone ?? 'UTC');
        if (timeZone === null) {
          throw new ImportError(at, `timeZone ${JSON.stringify(t.timeZone)} is not an IANA time zone`);
        }
        this.teamZones.set(t.id, timeZone);
        return { type: 'team', at, team: { id: t.id, name: t.name, timeZone } };
      }
      case 'member': {
        if (!checkMember(rec)) return invalid('member', rec, at);
        const m = rec as Static<typeof MemberRecord>;
        this.memberTeams.set(m.id, m.teamId);
        const member: Member = {
          id: m.id,
          teamId: m.teamId,
          email: m.email,
          name: m.name ?? null,
          role: m.role ?? 'member',
          pid: m.pid ?? null,
        };
        return { type: 'member', at, member };
      }
      case 'subteam': {
        if (!checkSubteam(rec)) return invalid('subteam', rec, at);
        const s = rec as Static<typeof SubteamRecord>;
        const subteam: Subteam = {
          id: s.id,
          teamId: s.teamId,
          name: s.name,
          members: s.members ?? [],
          admins: s.admins ?? [],
        };
        return { type: 'subteam', at, subteam };
      }
      case 'lead': {
        if (!checkLead(rec)) return invalid('lead', rec, at);
        const l = rec as LeadInput;
        const tooLate = captureTimeTooLate(l.epoch, this.settings.now, this.settings.captureToleranceMs);
        if (tooLate !== null) throw new ImportError(at, `epoch ${tooLate}`);
        return this.lead(l, at);
      }
      default:
        throw new ImportError(
          at,
          `unknown record type ${JSON.stringify(rec.type ?? null)} (team, member, subteam or lead)`,
        );
    }
  }

  private lead(rec: LeadInput, at: string): PreparedLead {
    const fault = leadFault(rec);
    const isLead = rec.isLead === true;
    const kind = isLead ? 'connection' : 'scan';
    // Always-present members (C1) get their documented defaults when the record leaves them out.
    const fields: Record<string, unknown> = {};
    if (fault === null) {
      for (const [k, v] of Object.entries(rec)) if (!NOT_IN_FIELDS.has(k)) fields[k] = v;
      fields.isManual ??= false;
      if (isLead) fields.apptoapp ??= false;
      else fields.isRoll ??= false;
    }
    let label: PreparedLead['label'] = null;
    if (rec.time === undefined && fault === null) {
      const team = this.memberTeams.get(rec.userId);
      const timeZone = team === undefined ? undefined : this.teamZones.get(team);
      if (timeZone !== undefined) label = { timeZone, time: timeLabel(rec.epoch, timeZone) };
    }
    const text = fault === null ? leadText(fields, { firstName: null, lastName: null }) : [];
    // A store that indexes padded words is sent those instead of the folded text (NewLead `text`).
    const padded = this.settings.paddedWords;
    return {
      type: 'lead',
      at,
      userId: rec.userId,
      userEmail: rec.userEmail ?? null,
      userPid: rec.userPid ?? null,
      fault,
      id: rec.id,
      epoch: rec.epoch,
      time: rec.time ?? null,
      label,
      kind,
      locationShared: rec.locationShared === true,
      lat: rec.lat ?? null,
      long: rec.long ?? null,
      fields: JSON.stringify(fields),
      source: sourceFromV1Flags(kind, fields.isManual === true, fields.apptoapp === true),
      text: padded ? null : text,
      words: padded ? text.map(paddedWords) : null,
      hasEmail: hasEmail(text),
    };
  }
}
