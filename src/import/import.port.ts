import type { Member, Subteam, Team } from '../directory/directory.js';
import type { Collector, NewLead } from '../leads/leads.port.js';

/**
 * What an import needs from a store: one atomic writer.
 * Implemented once per engine in src/storage/ (src/store.ts gathers the ports).
 */

export interface ImportedLeads {
  created: number;
  changed: number;
}

/** A record put aside until the records it references have been seen. */
export interface StagedRecord {
  ordinal: number;
  /** Where the record came from, as `file:line`. */
  source: string;
  text: string;
}

/**
 * One atomic import. Everything written through it becomes visible together on commit, or not
 * at all. Implementations hold one transaction for its whole life.
 */
export interface ImportWriter {
  /**
   * Whether the store indexes each lead's padded words (NewLead `words`): SQLite's FTS5 table
   * does; PostgreSQL's trigram index reads `search` and needs none, so an import spares the work.
   */
  readonly storesPaddedWords: boolean;
  upsertTeam(team: Team): Promise<void>;
  upsertMember(member: Member): Promise<void>;
  /**
   * What `upsertMember` of each, in order, does — in one statement where the store can, all or
   * nothing: when it throws, none of them is written and the import can go on (the caller then
   * writes them one at a time to learn which one failed).
   */
  upsertMembers(members: Member[]): Promise<void>;
  upsertSubteam(subteam: Subteam): Promise<void>;
  /** The stored teams among `ids`, by id. */
  teams(ids: readonly number[]): Promise<Map<number, Team>>;
  /** The stored members among `ids`, by id. */
  members(ids: readonly number[]): Promise<Map<number, Member>>;
  /** The collector of each member among `memberIds` that is stored with a stored team, by member id. */
  collectors(memberIds: readonly number[]): Promise<Map<number, Collector>>;
  /**
   * Stores leads after every lead handed over before, in order. A lead with the identity of a
   * stored one (member, id, epoch) whose values differ is changed: its values replaced, its
   * version up by one, moved to the end of the change feed and announced (`lead.updated`,
   * source `import`). One with the same values, or merged into another lead, is left as it is.
   * A lead that comes twice in one import is stored once, with its last values.
   */
  insertLeads(leads: NewLead[]): Promise<void>;
  /** Completes the leads of this import: how many were new, and how many stored ones changed. */
  finishLeads(): Promise<ImportedLeads>;
  stage(record: StagedRecord): Promise<void>;
  staged(): AsyncIterable<StagedRecord[]>;
}
