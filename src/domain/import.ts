import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { type ImportConfig, loadImportConfig } from '../config.js';
import { LeadRecord, MemberRecord, SubteamRecord, TeamRecord } from '../schemas/import-records.js';
import { describeErrors, type SchemaError } from '../schemas/schema-errors.js';
import type { Subteam } from './directory.js';
import { importLines } from './import-lines.js';
import { captureTimeTooLate } from './instant.js';
import { COLUMN_MEMBERS, sourceFromV1Flags } from './lead.js';
import { leadText } from './lead-text.js';
import { findUnstorableText } from './storable-text.js';
import type { Collector, ImportWriter, NewLead, Store } from './store.js';
import { canonicalTimeZone, timeLabel } from './time-label.js';

/** A bad record: reported as `file:line: reason`, and the whole import is rolled back. */
export class ImportError extends Error {
  override name = 'ImportError';
  constructor(
    readonly source: string,
    readonly reason: string,
  ) {
    super(`${source}: ${reason}`);
  }
}

export interface ImportSource {
  /** Name used in messages: the path, or `-` for standard input. */
  name: string;
  open(): Readable;
}

export function fileSource(path: string, stdin: Readable = process.stdin): ImportSource {
  return { name: path, open: () => (path === '-' ? stdin : createReadStream(path)) };
}

export interface ImportSummary {
  teams: number;
  members: number;
  subteams: number;
  leads: number;
  /** Leads not in the store before; the others replaced a lead with the same identity. */
  newLeads: number;
}

/**
 * The bounds on a record: how far ahead of `now()` a lead's `epoch` may lie, and the longest
 * record (NDJSON line without its ending) in bytes — the import's settings (config.ts).
 */
export type ImportLimits = ImportConfig & { now: () => number };

/** The settings' defaults and the real clock, for callers that pass no limits. */
export const DEFAULT_IMPORT_LIMITS: ImportLimits = { ...loadImportConfig({}), now: Date.now };

export interface ImportOptions {
  /** Called now and then with the number of bytes read so far, over all sources. */
  onProgress?: (bytes: number) => void;
  limits?: ImportLimits;
}

/** Each record schema with its compiled check (the schema names the fields an error may mean). */
const checked = <T extends TSchema>(schema: T) => ({ schema, check: Compile(schema) });
const checkTeam = checked(TeamRecord);
const checkMember = checked(MemberRecord);
const checkSubteam = checked(SubteamRecord);
const checkLead = checked(LeadRecord);
const LEAD_BATCH = 1000;

type LeadInput = Static<typeof LeadRecord> & Record<string, unknown>;

/** `value` if it fits the record schema; else the first error, in the words the API uses (schema-errors.ts). */
function validate<T extends TSchema>(
  { schema, check }: { schema: T; check: ReturnType<typeof Compile<T>> },
  value: unknown,
  source: string,
): Static<T> {
  if (check.Check(value)) return value as Static<T>;
  const first = describeErrors(schema, check.Errors(value) as SchemaError[])[0];
  throw new ImportError(source, first?.sentence.replace(/^the body /, 'the record ') ?? 'invalid record');
}

/** `null` members mean "no value" (v1 never emits null), so they are dropped before validation. */
function withoutNulls(record: Record<string, unknown>): Record<string, unknown> {
  for (const k of Object.keys(record)) if (record[k] === null) delete record[k];
  return record;
}

const NOT_IN_FIELDS = new Set<string>([...COLUMN_MEMBERS, 'type', 'locationShared']);

/** Turns a validated lead record into the row to store, checking it against its collector. */
function toNewLead(rec: LeadInput, collector: Collector, source: string): NewLead {
  if (rec.userEmail !== undefined && rec.userEmail !== collector.email) {
    throw new ImportError(
      source,
      `userEmail ${JSON.stringify(rec.userEmail)} is not member ${rec.userId}'s e-mail`,
    );
  }
  const userPid = rec.userPid ?? collector.pid;
  if (userPid === null) {
    throw new ImportError(source, `userPid is missing and member ${rec.userId} has no pid`);
  }
  if (rec.lat !== undefined && Math.abs(Number(rec.lat)) > 90)
    throw new ImportError(source, 'lat must be within ±90');
  if (rec.long !== undefined && Math.abs(Number(rec.long)) > 180)
    throw new ImportError(source, 'long must be within ±180');
  const isLead = rec.isLead === true;
  const isScan = rec.isScan === true;
  if (isLead === isScan) {
    throw new ImportError(
      source,
      'a lead carries exactly one of isLead: true (connection) or isScan: true (scan)',
    );
  }
  // Always-present members (C1) get their documented defaults when the record leaves them out.
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rec)) if (!NOT_IN_FIELDS.has(k)) fields[k] = v;
  fields.isManual ??= false;
  if (isLead) fields.apptoapp ??= false;
  else fields.isRoll ??= false;
  const kind = isLead ? 'connection' : 'scan';
  return {
    teamId: collector.teamId,
    memberId: rec.userId,
    id: rec.id,
    epoch: rec.epoch,
    time: rec.time ?? timeLabel(rec.epoch, collector.timeZone),
    userPid,
    kind,
    locationShared: rec.locationShared === true,
    lat: rec.lat ?? null,
    long: rec.long ?? null,
    fields: JSON.stringify(fields),
    source: sourceFromV1Flags(kind, fields.isManual === true, fields.apptoapp === true),
    firstName: null,
    lastName: null,
    text: leadText(fields, { firstName: null, lastName: null }),
  };
}

class Importer {
  readonly summary: ImportSummary = { teams: 0, members: 0, subteams: 0, leads: 0, newLeads: 0 };
  private ordinal = 0;
  /** Once a lead has to wait for its member, every later lead waits too: storage order is file order. */
  private staging = false;
  private batch: NewLead[] = [];
  private readonly collectors = new Map<number, Collector>();
  private readonly memberSources = new Map<number, string>();
  private readonly subteams = new Map<number, { source: string; subteam: Subteam }>();

  private readonly now: number;

  constructor(
    private readonly writer: ImportWriter,
    private readonly limits: ImportLimits,
  ) {
    this.now = limits.now();
  }

  async record(text: string, source: string): Promise<void> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new ImportError(source, `invalid JSON: ${(err as Error).message}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ImportError(source, 'a record is a JSON object');
    }
    // JSON text holds NUL or a lone surrogate only as a \u escape (raw controls are not JSON, and
    // broken UTF-8 is read as U+FFFD): most records skip the walk.
    const unstorable = text.includes('\\u') ? findUnstorableText(value) : null;
    if (unstorable !== null) {
      const where = unstorable.path.length === 0 ? 'record' : unstorable.path.join('.');
      throw new ImportError(source, `${where} ${unstorable.reason}`);
    }
    const rec = withoutNulls(value as Record<string, unknown>);
    switch (rec.type) {
      case 'team': {
        const t = validate(checkTeam, rec, source);
        const timeZone = canonicalTimeZone(t.timeZone ?? 'UTC');
        if (timeZone === null) {
          throw new ImportError(source, `timeZone ${JSON.stringify(t.timeZone)} is not an IANA time zone`);
        }
        await this.writer.upsertTeam({ id: t.id, name: t.name, timeZone });
        this.collectors.clear();
        this.summary.teams++;
        return;
      }
      case 'member': {
        const m = validate(checkMember, rec, source);
        // Leads held for the next batch were resolved against the member as stored so far: write
        // them first, so a member who moves to another team takes them along like the others.
        await this.flush();
        try {
          await this.writer.upsertMember({
            id: m.id,
            teamId: m.teamId,
            email: m.email,
            name: m.name ?? null,
            role: m.role ?? 'member',
            pid: m.pid ?? null,
          });
        } catch (err) {
          if (/UNIQUE|unique/.test((err as Error).message))
            throw new ImportError(source, `e-mail ${JSON.stringify(m.email)} belongs to another member`);
          throw err;
        }
        this.collectors.delete(m.id);
        this.memberSources.set(m.id, source);
        this.summary.members++;
        return;
      }
      case 'subteam': {
        const s = validate(checkSubteam, rec, source);
        const subteam: Subteam = {
          id: s.id,
          teamId: s.teamId,
          name: s.name,
          members: s.members ?? [],
          admins: s.admins ?? [],
        };
        await this.writer.upsertSubteam(subteam);
        this.subteams.set(s.id, { source, subteam });
        this.summary.subteams++;
        return;
      }
      case 'lead': {
        const l = validate(checkLead, rec, source) as LeadInput;
        const tooLate = captureTimeTooLate(l.epoch, this.now, this.limits.captureToleranceMs);
        if (tooLate !== null) throw new ImportError(source, `epoch ${tooLate}`);
        this.ordinal++;
        this.summary.leads++;
        const collector = this.staging ? null : await this.collector(l.userId);
        if (collector === null) {
          // Its member (or the member's team) comes later in the import: resolve it at the end.
          this.staging = true;
          await this.writer.stage({ ordinal: this.ordinal, source, text });
          return;
        }
        this.batch.push(toNewLead(l, collector, source));
        if (this.batch.length >= LEAD_BATCH) await this.flush();
        return;
      }
      default:
        throw new ImportError(
          source,
          `unknown record type ${JSON.stringify(rec.type ?? null)} (team, member, subteam or lead)`,
        );
    }
  }

  private async collector(memberId: number): Promise<Collector | null> {
    const cached = this.collectors.get(memberId);
    if (cached !== undefined) return cached;
    const found = await this.writer.collector(memberId);
    if (found !== null) this.collectors.set(memberId, found);
    return found;
  }

  private async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    await this.writer.insertLeads(this.batch);
    this.batch = [];
  }

  /** Every reference must resolve by the end of the import (import-format.md). */
  async finish(): Promise<void> {
    await this.flush();
    for (const [id, source] of this.memberSources) {
      const m = await this.writer.member(id);
      if (m !== null && (await this.writer.team(m.teamId)) === null) {
        throw new ImportError(source, `team ${m.teamId} is not defined`);
      }
    }
    for (const { source, subteam } of this.subteams.values()) {
      if ((await this.writer.team(subteam.teamId)) === null)
        throw new ImportError(source, `team ${subteam.teamId} is not defined`);
      for (const id of new Set([...subteam.members, ...subteam.admins])) {
        const m = await this.writer.member(id);
        if (m === null) throw new ImportError(source, `member ${id} is not defined`);
        if (m.teamId !== subteam.teamId)
          throw new ImportError(source, `member ${id} is not on team ${subteam.teamId}`);
      }
    }
    for await (const staged of this.writer.staged()) {
      for (const r of staged) {
        const l = JSON.parse(r.text) as LeadInput;
        withoutNulls(l);
        const collector = await this.collector(l.userId);
        if (collector === null) {
          const member = await this.writer.member(l.userId);
          throw new ImportError(
            r.source,
            member === null
              ? `member ${l.userId} is not defined`
              : `team ${member.teamId} of member ${l.userId} is not defined`,
          );
        }
        this.batch.push(toNewLead(l, collector, r.source));
      }
      await this.flush();
    }
    this.summary.newLeads = await this.writer.finishLeads();
  }
}

/**
 * Loads NDJSON records from the sources in one transaction: all of them or nothing
 * (import-format.md). Streams line by line; memory does not grow with the input, nor with a
 * line: one over `limits.importMaxRecordBytes` is refused without being held.
 */
export async function importRecords(
  store: Store,
  sources: ImportSource[],
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const limits = options.limits ?? DEFAULT_IMPORT_LIMITS;
  return store.importAtomically(async (writer) => {
    const importer = new Importer(writer, limits);
    let bytes = 0;
    let reported = 0;
    for (const src of sources) {
      const input = src.open();
      try {
        for await (const line of importLines(input, limits.importMaxRecordBytes)) {
          bytes += line.bytes + 1;
          if (options.onProgress !== undefined && bytes - reported > 1 << 20) {
            reported = bytes;
            options.onProgress(bytes);
          }
          const source = `${src.name}:${line.lineNo}`;
          if (line.text === null) {
            throw new ImportError(
              source,
              `record is ${line.bytes} bytes; the limit is ${limits.importMaxRecordBytes} (LEADLINE_IMPORT_MAX_RECORD_BYTES)`,
            );
          }
          if (line.text.trim() === '') continue;
          await importer.record(line.text, source);
        }
      } catch (err) {
        // A file that cannot be read is the operator's to fix; anything else is not theirs.
        if ((err as NodeJS.ErrnoException).syscall !== undefined)
          throw new ImportError(src.name, 'cannot read the file');
        throw err;
      } finally {
        if (src.name !== '-') input.destroy();
      }
    }
    await importer.finish();
    options.onProgress?.(bytes);
    return importer.summary;
  });
}
