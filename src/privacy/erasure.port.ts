import type { AuditActor } from '../audit/audit.port.js';

/**
 * What erasure and suppression need from a store (docs/privacy.md "Erasure", "Suppression").
 * Implemented once per engine in src/storage/ (src/store.ts gathers the ports).
 */

/**
 * Who asked for an erasure: a team admin's API key, the operator on the command line, or the
 * team's retention policy of `days` (docs/privacy.md "Retention").
 */
export type ErasureRequester =
  | { via: 'key'; keyId: number; memberId: number }
  | { via: 'operator' }
  | { via: 'console'; memberId: number }
  | { via: 'retention'; days: number };

/** A lead found for an erasure: its team, v2 id and its stored `fields` (JSON) for the exact check. */
export interface ErasureCandidate {
  teamId: number;
  uuid: string;
  fields: string;
}

/** What one erasure removed, place by place (docs/privacy.md "What erasure removes"). */
export interface ErasureCounts {
  /** Leads wiped to a tombstone: those asked for or matched... */
  leads: number;
  /** ... of which merged into an erased lead (the same person's data, erased with it). */
  mergedLeads: number;
  /** Search index rows (SQLite lead_text; PostgreSQL's text columns live in the lead row). */
  searchRows: number;
  /** Outbox events about the erased leads, pending or past. */
  webhookEvents: number;
  /** Their deliveries, with the payloads rendered for each endpoint. */
  webhookDeliveries: number;
  /** The recorded attempts of those deliveries, with the receivers' answers. */
  webhookAttempts: number;
  /** Stored idempotent creations that answer with an erased lead. */
  idempotencyKeys: number;
}

/** The receipt of an erasure: when, by whom, what was matched — never the e-mail itself. */
export interface ErasureReceipt {
  id: string;
  /** null: an operator's erasure over every team. */
  teamId: number | null;
  requestedBy: ErasureRequester;
  requestedAt: number;
  /** HMAC-SHA256 (hex) of the normalised e-mail under the store's erasure secret; null: by lead ids. */
  emailHash: string | null;
  /** How many lead ids the request named (0 for an erasure by e-mail). */
  leadIds: number;
  counts: ErasureCounts;
}

/** One erasure to carry out, in one transaction. */
export interface ErasureOrder {
  id: string;
  teamId: number | null;
  requestedBy: ErasureRequester;
  at: number;
  emailHash: string | null;
  leadIds: number;
  /** The leads to erase (leads merged into them are erased too). */
  leads: { teamId: number; uuid: string }[];
  /** With an e-mail: suppress it from now on, for the team (or every team: null). */
  suppress: { teamId: number | null; emailHash: string } | null;
  /**
   * A retention policy's erasure: of `leads`, only those still due — captured before this and
   * not changed since — read under the erasure's lock, so a lead changed after the run chose it
   * is kept (docs/privacy.md "Retention"). Absent: every lead named.
   */
  dueBefore?: number;
  /**
   * Who the audit log names: its `lead.erased` record is written in the same transaction. null:
   * the caller records the action itself — a retention run's batches are one `retention.run`.
   */
  actor: AuditActor | null;
}

/** A remembered erased e-mail: a keyed hash only. */
export interface Suppression {
  /** null: every team (an operator's erasure). */
  teamId: number | null;
  emailHash: string;
  createdAt: number;
  erasureId: string | null;
}

export interface ErasureStore {
  /**
   * Leads whose e-mail field may be `foldedEmail` (src/leads/text.ts `fold`), merged ones too,
   * not erased ones, in the team (or every team: null), found through the search index. A
   * superset: the caller keeps those whose e-mail normalises to the address erased.
   */
  candidates(teamId: number | null, foldedEmail: string): Promise<ErasureCandidate[]>;
  /** The v2 ids among `uuids` that are leads of the team, not erased (a request's lead ids). */
  existing(teamId: number, uuids: string[]): Promise<string[]>;
  /**
   * Carries out the erasure in one transaction: every lead (and every lead merged into one,
   * at any depth) wiped to a tombstone, moved to the end of the feed, its search row, outbox
   * events, deliveries, attempts and idempotency records deleted, a `lead.erased` event for each
   * (when its team has an endpoint for it), the receipt, the suppression, the audit record
   * (privacy/erasure-audit.ts). Returns the receipt.
   */
  erase(order: ErasureOrder): Promise<ErasureReceipt>;
  /** A receipt by id; null when there is none. */
  receipt(id: string): Promise<ErasureReceipt | null>;
  /**
   * After an erasure committed: makes the freed bytes unreadable (SQLite: a WAL checkpoint that
   * truncates it; PostgreSQL: VACUUM of the touched tables). docs/privacy.md "Physically gone".
   */
  reclaim(): Promise<void>;
  /** Whether the e-mail hash is suppressed for the team (its own or a global suppression). */
  suppressed(teamId: number, emailHash: string): Promise<boolean>;
  /** Suppressions, newest first: the team's (and global ones), or every one (null). */
  suppressions(teamId: number | null): Promise<Suppression[]>;
  /** Lifts a suppression (team null: the global one); false when there was none. */
  unsuppress(teamId: number | null, emailHash: string): Promise<boolean>;
}
