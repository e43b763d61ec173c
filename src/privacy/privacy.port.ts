import type { Scope } from '../directory/access.js';
import type { StoredLead } from '../leads/lead.js';

/**
 * What the privacy slice needs from a store (docs/privacy.md): a person's leads found by their
 * e-mail through the search index, and the webhook deliveries that carried given leads.
 * Implemented once per engine in src/storage/ (src/store.ts gathers the ports).
 */

/** One webhook delivery of an event about a lead: when, to which endpoint, how it went. */
export interface CarriedDelivery {
  /** The lead the event was about (Lead `seq`). */
  leadSeq: number;
  eventId: string;
  /** `lead.created`, `lead.updated`, `lead.merged`. */
  type: string;
  endpointId: string;
  /** The endpoint's URL as registered; the use case keeps its host only. */
  endpointUrl: string;
  /** When the event was dispatched to the endpoint (ms since the epoch). */
  createdAt: number;
  state: 'pending' | 'delivered' | 'failed' | 'dropped';
  attempts: number;
  /** When it was last attempted; null before its first attempt (or dropped, attempts gone). */
  lastAttemptAt: number | null;
}

export interface PrivacyStore {
  /**
   * Candidates for one person's leads in the scope, merged ones too: every lead whose e-mail
   * field holds each word of `foldedEmail` (src/leads/text.ts `fold`), found through the search
   * index (SQLite FTS5 trigrams, PostgreSQL pg_trgm), never by a walk of the scope's leads. A
   * superset: the caller keeps those whose e-mail is the same address (docs/privacy.md "Subject
   * access"). From the primary on PostgreSQL: an answer misses no lead stored a moment ago.
   */
  leadsByEmail(scope: Scope, foldedEmail: string): Promise<StoredLead[]>;
  /**
   * The deliveries of the team's webhook events about these leads (by `seq`), oldest event
   * first; an event not yet dispatched has none. Only the team's own events and endpoints.
   */
  deliveriesOfLeads(teamId: number, leadSeqs: number[]): Promise<CarriedDelivery[]>;
}
