import type { UsageRow } from './usage.js';

/**
 * What the `v1.usage` notices need from a store (docs/webhooks.md "v1.usage"): the ledger's v1
 * rows of some days, and the claim of a team's notice for a day with its deliveries.
 * Implemented once per engine in src/storage/ (part of RetirementStore).
 */

/** A `v1.usage` notice about to be written: its body rendered, its webhook-id chosen. */
export interface V1NoticeDraft {
  teamId: number;
  /** The UTC day (YYYY-MM-DD) whose calls it reports. */
  day: string;
  eventId: string;
  payload: string;
  createdAt: number;
}

/**
 * `sent`: claimed now, one delivery per endpoint; `sent-before`: the team's notice for the day
 * was written already (by this instance or another); `no-endpoint`: claimed and written to the
 * event log (docs/v2.md "Events"), but no enabled endpoint of the team takes `v1.usage`, so no
 * delivery (an endpoint added later that day does not get it: the log has it).
 */
export type V1NoticeOutcome =
  | { kind: 'sent'; deliveries: number }
  | { kind: 'sent-before' }
  | { kind: 'no-endpoint' };

export interface V1NoticeStore {
  /** The ledger's v1 rows of the days `fromDay` to `toDay` (YYYY-MM-DD, both included), every key's. */
  v1UsageBetween(fromDay: string, toDay: string): Promise<UsageRow[]>;
  /**
   * In one transaction: claims (team, day) — unique, so of several instances racing one wins —
   * and queues the notice to every enabled endpoint of the team that lists `v1.usage`, signed
   * and retried by the delivery loop like any event.
   */
  sendV1Notice(draft: V1NoticeDraft): Promise<V1NoticeOutcome>;
}
