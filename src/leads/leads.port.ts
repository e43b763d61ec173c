import type { SubteamAccess } from '../directory/directory.port.js';
import type { ChangeSource, Lead, LeadKind, LeadSource, StoredLead } from './lead.js';
import type { LeadText, TextField } from './text.js';
import type { V1Piece } from './v1-wire.js';

/**
 * What the leads slice needs from a store: reads by range, search and the change feed, and v2 creation.
 * Implemented once per engine in src/storage/ (src/store.ts gathers the ports).
 */

/** Half-open epoch range `start <= epoch < end`; `end: null` means no upper bound. */
export interface EpochRange {
  start: number;
  end: number | null;
}

/** Whose leads a range covers: a member's own, or a whole team's. */
export interface RangeScope {
  teamId: number;
  memberId?: number;
}

/**
 * Whose leads a v2 read covers: the team's; when `members` or `subteams` is given, only the
 * leads collected by a listed member or by a current member of a listed subteam (the union).
 */
export interface LeadScope {
  teamId: number;
  members?: number[];
  subteams?: number[];
}

/** One v2 `query` clause: any of `fields` matches the already folded `value` (lead-text.ts). */
export interface TextClause {
  fields: TextField[];
  value: string;
  match: 'EXACT' | 'FUZZY';
}

/** A v2 search: every condition holds (clauses AND together). */
export interface LeadFilter {
  scope: LeadScope;
  /** Half-open epoch range; null: unbounded on that side. */
  start: number | null;
  end: number | null;
  sources: LeadSource[] | null;
  hasEmail: boolean | null;
  text: TextClause[];
}

/** A keyset position in (epoch, seq) order: the last lead of the previous page. */
export interface SearchPosition {
  epoch: number;
  seq: number;
}

/**
 * One page of the change feed and where the next one starts (an engine-specific position). A
 * lead merged into another is in it too, at the place of its merge, with `mergedInto` set.
 */
export interface ChangesPage {
  leads: StoredLead[];
  /** Each lead's own position (a stream resumes after any of them: Server-Sent Events' ids). */
  positions: string[];
  /** Position after the last lead returned; the given position when the page is empty. */
  next: string;
}

/** What to remember about a v2 creation's `Idempotency-Key`. */
export interface IdempotencyClaim {
  keyId: number;
  key: string;
  /** Hash of the request body: the same key with another body is a conflict. */
  bodyHash: string;
  at: number;
}

export type CreateResult =
  | { kind: 'created'; lead: StoredLead }
  | { kind: 'replayed'; lead: StoredLead }
  | { kind: 'conflict' };

/** A subteam's last lead, as seen by the member asking. */
export interface SubteamLast extends SubteamAccess {
  lead: Lead | null;
}

export interface LeadStore {
  lastOfMember(teamId: number, memberId: number): Promise<Lead | null>;
  lastOfTeam(teamId: number): Promise<Lead | null>;
  /**
   * Last lead of the subteam's current members, with what `memberId` may do in the subteam, in
   * one store read (v1 getLastLeadSubTeam checks the access before it answers). `null`: no such
   * subteam on the team.
   */
  lastOfSubteam(teamId: number, subteamId: number, memberId: number): Promise<SubteamLast | null>;
  /**
   * Leads in ascending (epoch, storage order), in batches of at most `batchSize`. Each batch is
   * a separate keyset read, so nothing is held open between batches and other work can run.
   */
  range(scope: RangeScope, range: EpochRange, batchSize: number): AsyncIterable<Lead[]>;
  /**
   * The same leads as v1 wire text (V1Piece), batch by batch — read and serialised on a thread
   * of the store's own where another connection can reach it (docs/v1-reference.md "Long
   * ranges"), so a long answer does not hold the thread that serves requests.
   */
  v1Range(scope: RangeScope, range: EpochRange): AsyncIterable<V1Piece>;
  /**
   * v2 search: up to `limit` leads matching `filter`, in (epoch, seq) order `direction`,
   * strictly after `after` in that order.
   */
  search(
    filter: LeadFilter,
    direction: 'ASC' | 'DESC',
    after: SearchPosition | null,
    limit: number,
  ): Promise<Lead[]>;
  /**
   * The lead with this v2 id, if it is in the scope — a merged one too (`mergedInto` set).
   * `fromPrimary`: never from a read replica (a change reads the version it writes over).
   */
  byUuid(scope: LeadScope, uuid: string, fromPrimary?: boolean): Promise<StoredLead | null>;
  /**
   * Leads in the scope in storage order, after `after` (null: from the start). On PostgreSQL a
   * lead only appears once every transaction that could have stored an earlier one has ended,
   * so a reader that follows `next` never skips a lead that commits late.
   */
  changes(scope: LeadScope, after: string | null, limit: number): Promise<ChangesPage>;
  /**
   * Stores one lead now (v2 creation), visible to every read once this resolves. With a claim,
   * the first creation under the key is remembered: the same key and body again return that
   * lead (`replayed`); the same key with another body is a `conflict`.
   */
  create(lead: NewLead, claim: IdempotencyClaim | null): Promise<CreateResult>;
  /**
   * Writes new values over a lead, in one transaction with its `lead.updated` event (when the
   * team has an endpoint for it): only while the lead is still at `change.version` and not
   * merged. Its version goes up by one and it moves to the end of the change feed.
   */
  update(change: LeadUpdate): Promise<WriteResult>;
  /**
   * The survivor takes its new values (as `update`) and every merged lead records `mergedInto`,
   * all in one transaction with their events (`lead.updated` for the survivor when its values
   * changed, `lead.merged` for each merged one) — only while every lead is still at its version.
   */
  merge(merge: LeadMerge): Promise<WriteResult>;
  /**
   * The scope's unmerged leads in storage order, in batches of at most `batchSize`, each a
   * separate keyset read (the duplicates finder walks them).
   */
  scan(scope: LeadScope, batchSize: number): AsyncIterable<StoredLead[]>;
  /**
   * Up to `limit` leads — merged ones too — whose e-mail, folded (text.ts `fold`) and trimmed,
   * is `email` (already so normalised), in storage order; of `teamId`'s leads, or of every
   * team's when null (the operator). The console's lead search (docs/console.md, "Lead page").
   */
  byEmail(teamId: number | null, email: string, limit: number): Promise<StoredLead[]>;
  /**
   * A lead by v2 id, merged or not, with what the console's lead page shows of it: when it last
   * changed, the leads merged into it, and the outbox's events about it and about those (oldest
   * first, at most `eventLimit`, the newest kept). `teamId` null: any team's (the operator).
   */
  record(teamId: number | null, uuid: string, eventLimit: number): Promise<LeadRecord | null>;
}

/** An outbox event about a lead (webhook_events), as long as the store keeps it. */
export interface LeadEvent {
  type: 'lead.created' | 'lead.updated' | 'lead.merged';
  /** The v2 id of the lead it is about. */
  leadId: string;
  at: number;
  /** Where the change came from; null for `lead.created`. */
  source: ChangeSource | null;
  /** `lead.updated`: the values before and after (never shown: lead-history.ts keeps the names). */
  before: LeadValues | null;
  after: LeadValues | null;
  /** `lead.merged`: the survivor's v2 id. */
  mergedInto: string | null;
  /** The lead's version after it (1 for `lead.created`); null for an event that did not record it. */
  version: number | null;
}

/** A lead with its last change, the leads merged into it and the events the store still holds. */
export interface LeadRecord {
  lead: StoredLead;
  /** When its last change was made; null while it is as stored. */
  changedAt: number | null;
  /** Leads whose `mergedInto` is this lead, in storage order. */
  merged: StoredLead[];
  events: LeadEvent[];
}

/**
 * The values of a lead a change may replace: everything but its identity (team, member, v1 id,
 * capture time), its v2 id and when it was stored. `text`/`hasEmail` follow from them (text.ts).
 */
export interface LeadValues {
  time: string;
  userPid: string;
  kind: LeadKind;
  locationShared: boolean;
  lat: string | null;
  long: string | null;
  fields: string;
  source: LeadSource;
  firstName: string | null;
  lastName: string | null;
}

/** New values for one stored lead, computed from it at `version`. */
export interface LeadUpdate {
  teamId: number;
  uuid: string;
  /** The version the new values were computed from: the write happens only at that version. */
  version: number;
  values: LeadValues;
  /** The values it had at `version` (the event's previous values). */
  before: LeadValues;
  text: LeadText;
  hasEmail: boolean;
  source: ChangeSource;
  at: number;
}

/** A merge: the survivor's update (its values may stay as they are) and the leads merged into it. */
export interface LeadMerge {
  survivor: LeadUpdate;
  merged: { uuid: string; version: number }[];
}

/**
 * `written`: the lead as it is now (the survivor, for a merge). `stale`: a lead was no longer at
 * the version given, was merged meanwhile or is gone; nothing was written.
 */
export type WriteResult = { kind: 'written'; lead: StoredLead } | { kind: 'stale' };

/** What an import needs to know about a lead's collector. */
export interface Collector {
  teamId: number;
  email: string;
  pid: string | null;
  timeZone: string;
}

/** A lead ready to store. Leads are stored in the order they are handed over (storage order). */
export interface NewLead extends LeadValues {
  teamId: number;
  memberId: number;
  /** The v1 `id`; null (v2 creation): the store draws a random one (lead-id.ts). */
  id: string | null;
  epoch: number;
  /**
   * Folded searchable text (lead-text.ts); null when `words` are given instead: an import into a
   * store that indexes padded words (ImportWriter `storesPaddedWords`) does not send the folded
   * text, which that store does not read, from the thread that prepares its records.
   */
  text: LeadText | null;
  /**
   * Each searchable field's words padded for trigram search (lead-text.ts `paddedWords`), when
   * computed ahead: an import computes them where it prepares its records, off the writing thread.
   */
  words?: string[];
  /** Whether the folded text holds an e-mail (lead-text.ts `hasEmail`). */
  hasEmail: boolean;
}
