// Longer than the ~250 lines most files keep to: the writing side of an import follows the
// records' order and the references between them (teams, members, subteams, leads, staged records)
// in one function.
import { createReadStream, statSync } from 'node:fs';
import { type ImportConfig, loadImportConfig } from '../../config.js';
import type { ImportWriter } from '../../import/import.port.js';
import { ImportError } from '../../import/import-error.js';
// Types only: the record checks (and their schema library, ~0.5 s to load) are loaded by
// whoever prepares records — the worker for a large input, import-feed.ts for a small one.
import type { PreparedLead, PreparedRecord } from '../../import/prepare.js';
import type { Collector, NewLead } from '../../leads/leads.port.js';
import { timeLabel } from '../../leads/time-label.js';
import { suppressionCheck } from '../../privacy/suppression.js';
import type { Store } from '../../store.js';
import { type ImportSource, preparedBatches, workerPlan } from './feed.js';

/** A file to import, or standard input for `-`. */
export function fileSource(path: string, stdin = process.stdin): ImportSource {
  if (path === '-') return { name: path, open: () => stdin };
  let size: number | undefined;
  try {
    size = statSync(path).size;
  } catch {
    // Reported as the file that cannot be read when it is opened.
  }
  return { name: path, size, open: () => createReadStream(path) };
}

export interface ImportSummary {
  teams: number;
  members: number;
  subteams: number;
  leads: number;
  /** Leads not in the store before; the others replaced a lead with the same identity. */
  newLeads: number;
  /** Stored leads whose values this import changed (announced as `lead.updated`). */
  changed: number;
  /**
   * Lead records skipped because their e-mail was erased and is suppressed for their team
   * (docs/privacy.md "Suppression"); counted in `leads` too.
   */
  suppressed: number;
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
  /**
   * Prepare the records in a worker thread while this one writes (import-feed.ts): true, every
   * record; false, none. By default for files of 4 MiB or more, and for input of unknown size
   * once 4 MiB have been read (WORKER_FROM_BYTES), this thread preparing while it starts.
   */
  worker?: boolean;
}

/** The lead to store: `lead` finished with its collector, after the checks that need it. */
function completeLead(lead: PreparedLead, collector: Collector): NewLead {
  if (lead.userEmail !== null && lead.userEmail !== collector.email) {
    throw new ImportError(
      lead.at,
      `userEmail ${JSON.stringify(lead.userEmail)} is not member ${lead.userId}'s e-mail`,
    );
  }
  const userPid = lead.userPid ?? collector.pid;
  if (userPid === null) {
    throw new ImportError(lead.at, `userPid is missing and member ${lead.userId} has no pid`);
  }
  if (lead.fault !== null) throw new ImportError(lead.at, lead.fault);
  const time =
    lead.time ??
    (lead.label?.timeZone === collector.timeZone
      ? lead.label.time
      : timeLabel(lead.epoch, collector.timeZone));
  return {
    teamId: collector.teamId,
    memberId: lead.userId,
    id: lead.id,
    epoch: lead.epoch,
    time,
    userPid,
    kind: lead.kind,
    locationShared: lead.locationShared,
    lat: lead.lat,
    long: lead.long,
    fields: lead.fields,
    source: lead.source,
    firstName: null,
    lastName: null,
    text: lead.text,
    words: lead.words ?? undefined,
    hasEmail: lead.hasEmail,
  };
}

const LEAD_BATCH = 1000;
/** Members written in one statement (on PostgreSQL one round trip instead of two a member). */
const MEMBER_BATCH = 1000;

type PreparedMember = Extract<PreparedRecord, { type: 'member' }>;

/**
 * The second half of an import (the first: import-prepare.ts): each prepared record, in input
 * order, written through the store's import writer — a lead once its collector is known.
 */
class Importer {
  readonly summary: ImportSummary = {
    teams: 0,
    members: 0,
    subteams: 0,
    leads: 0,
    newLeads: 0,
    changed: 0,
    suppressed: 0,
  };
  private ordinal = 0;
  /** Once a lead has to wait for its member, every later lead waits too: storage order is file order. */
  private staging = false;
  private batch: NewLead[] = [];
  /** Consecutive member records not written yet, each id once. */
  private pendingMembers: PreparedMember[] = [];
  private readonly pendingMemberIds = new Set<number>();
  private readonly collectors = new Map<number, Collector>();
  private readonly memberSources = new Map<number, string>();
  private readonly subteams = new Map<number, { source: string; subteam: PreparedSubteam }>();

  constructor(
    private readonly writer: ImportWriter,
    /** Whether a lead's e-mail is suppressed for its team (suppression.ts); null: none is. */
    private readonly suppressed: ((teamId: number, fields: string) => boolean) | null = null,
  ) {}

  /** Into the next batch, unless its e-mail is suppressed: then skipped and counted. */
  private add(lead: NewLead): void {
    if (this.suppressed?.(lead.teamId, lead.fields) === true) this.summary.suppressed++;
    else this.batch.push(lead);
  }

  async record(r: PreparedRecord): Promise<void> {
    if (r.type === 'member') return this.member(r);
    // Every record sees the members before it written (and an error comes after theirs).
    await this.flushMembers();
    switch (r.type) {
      case 'team':
        await this.writer.upsertTeam(r.team);
        this.collectors.clear();
        this.summary.teams++;
        return;
      case 'subteam':
        await this.writer.upsertSubteam(r.subteam);
        this.subteams.set(r.subteam.id, { source: r.at, subteam: r.subteam });
        this.summary.subteams++;
        return;
      case 'lead': {
        this.ordinal++;
        this.summary.leads++;
        const collector = this.staging ? null : await this.collector(r.userId);
        if (collector === null) {
          // Its member (or the member's team) comes later in the import: resolve it at the end.
          this.staging = true;
          await this.writer.stage({ ordinal: this.ordinal, source: r.at, text: JSON.stringify(r) });
          return;
        }
        this.add(completeLead(r, collector));
        if (this.batch.length >= LEAD_BATCH) await this.flush();
        return;
      }
      case 'error':
        throw new ImportError(r.at, r.reason);
      case 'invalid':
        throw new ImportError(
          r.at,
          (await import('../../import/record-fault.js')).recordFault(r.record, r.value),
        );
    }
  }

  private async member(r: PreparedMember): Promise<void> {
    // Leads held for the next batch were resolved against the member as stored so far: write
    // them first, so a member who moves to another team takes them along like the others.
    await this.flush();
    // One statement cannot write a row twice: a member's second record starts a new batch.
    if (this.pendingMembers.length >= MEMBER_BATCH || this.pendingMemberIds.has(r.member.id))
      await this.flushMembers();
    this.pendingMembers.push(r);
    this.pendingMemberIds.add(r.member.id);
  }

  private async flushMembers(): Promise<void> {
    const pending = this.pendingMembers;
    if (pending.length === 0) return;
    this.pendingMembers = [];
    this.pendingMemberIds.clear();
    try {
      await this.writer.upsertMembers(pending.map((p) => p.member));
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // None of them is written: one at a time, to name the record whose e-mail is taken.
      for (const p of pending) await this.upsertMember(p);
    }
    for (const p of pending) {
      this.memberSources.set(p.member.id, p.at);
      this.summary.members++;
    }
    // Their leads usually follow: learn their collectors in one read, not one read a member.
    const ids = pending.map((p) => p.member.id);
    for (const id of ids) this.collectors.delete(id);
    for (const [id, c] of await this.writer.collectors(ids)) this.collectors.set(id, c);
  }

  private async upsertMember(r: PreparedMember): Promise<void> {
    try {
      await this.writer.upsertMember(r.member);
    } catch (err) {
      if (isUniqueViolation(err))
        throw new ImportError(r.at, `e-mail ${JSON.stringify(r.member.email)} belongs to another member`);
      throw err;
    }
  }

  private async collector(memberId: number): Promise<Collector | null> {
    const cached = this.collectors.get(memberId);
    if (cached !== undefined) return cached;
    const found = (await this.writer.collectors([memberId])).get(memberId) ?? null;
    if (found !== null) this.collectors.set(memberId, found);
    return found;
  }

  private async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    await this.writer.insertLeads(this.batch);
    this.batch = [];
  }

  /** Every reference must resolve by the end of the import (docs/import-format.md). */
  async finish(): Promise<void> {
    await this.flushMembers();
    await this.flush();
    // The members and teams every check below needs, read at once.
    const memberIds = new Set(this.memberSources.keys());
    for (const { subteam } of this.subteams.values())
      for (const id of [...subteam.members, ...subteam.admins]) memberIds.add(id);
    const members = await this.writer.members([...memberIds]);
    const teamIds = new Set([...members.values()].map((m) => m.teamId));
    for (const { subteam } of this.subteams.values()) teamIds.add(subteam.teamId);
    const teams = await this.writer.teams([...teamIds]);
    for (const [id, source] of this.memberSources) {
      const m = members.get(id);
      if (m !== undefined && !teams.has(m.teamId))
        throw new ImportError(source, `team ${m.teamId} is not defined`);
    }
    for (const { source, subteam } of this.subteams.values()) {
      if (!teams.has(subteam.teamId)) throw new ImportError(source, `team ${subteam.teamId} is not defined`);
      for (const id of new Set([...subteam.members, ...subteam.admins])) {
        const m = members.get(id);
        if (m === undefined) throw new ImportError(source, `member ${id} is not defined`);
        if (m.teamId !== subteam.teamId)
          throw new ImportError(source, `member ${id} is not on team ${subteam.teamId}`);
      }
    }
    for await (const staged of this.writer.staged()) {
      const leads = staged.map((r) => JSON.parse(r.text) as PreparedLead);
      const unknown = [...new Set(leads.map((l) => l.userId))].filter((id) => !this.collectors.has(id));
      if (unknown.length > 0)
        for (const [id, c] of await this.writer.collectors(unknown)) this.collectors.set(id, c);
      for (const [i, r] of staged.entries()) {
        const lead = leads[i]!;
        const collector = this.collectors.get(lead.userId);
        if (collector === undefined) {
          const member = (await this.writer.members([lead.userId])).get(lead.userId);
          throw new ImportError(
            r.source,
            member === undefined
              ? `member ${lead.userId} is not defined`
              : `team ${member.teamId} of member ${lead.userId} is not defined`,
          );
        }
        this.add(completeLead(lead, collector));
      }
      await this.flush();
    }
    const written = await this.writer.finishLeads();
    this.summary.newLeads = written.created;
    this.summary.changed = written.changed;
  }
}

const isUniqueViolation = (err: unknown): boolean => /UNIQUE|unique/.test((err as Error).message);

type PreparedSubteam = Extract<PreparedRecord, { type: 'subteam' }>['subteam'];

/**
 * Loads NDJSON records from the sources in one transaction: all of them or nothing
 * (docs/import-format.md). Streams: memory does not grow with the input, nor with a line — one over
 * `limits.importMaxRecordBytes` is refused without being held.
 */
export async function importRecords(
  store: Store,
  sources: ImportSource[],
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const limits = options.limits ?? DEFAULT_IMPORT_LIMITS;
  // Read before the import's transaction: an erasure committed meanwhile is caught by the next.
  const suppressed = await suppressionCheck(store);
  return store.importAtomically(async (writer) => {
    const settings = {
      captureToleranceMs: limits.captureToleranceMs,
      importMaxRecordBytes: limits.importMaxRecordBytes,
      now: limits.now(),
      paddedWords: writer.storesPaddedWords,
    };
    const importer = new Importer(writer, suppressed);
    let bytes = 0;
    let reported = 0;
    for await (const batch of preparedBatches(sources, settings, workerPlan(sources, options.worker))) {
      for (const r of batch.records) await importer.record(r);
      bytes += batch.bytes;
      if (options.onProgress !== undefined && bytes - reported > 1 << 20) {
        reported = bytes;
        options.onProgress(bytes);
      }
    }
    await importer.finish();
    options.onProgress?.(bytes);
    return importer.summary;
  });
}
