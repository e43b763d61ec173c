/**
 * What retention needs from a store (docs/privacy.md "Retention"): the teams' policies, the
 * leads they make due, the lease that keeps two runs off one team, and the erasure receipts'
 * pruning. Implemented once per engine in src/storage/ (src/store.ts gathers the ports).
 */

/**
 * How a lead's age is measured: from its last change, or its capture time when it was never
 * changed (**leadline decision**, docs/privacy.md "Retention"). The only basis today; stored with
 * the policy so another can be added without a migration.
 */
export type RetentionBasis = 'last-change';

export interface RetentionPolicy {
  teamId: number;
  /** Leads older than this many days are erased. */
  days: number;
  basis: RetentionBasis;
  setAt: number;
  /** When the last run of the policy finished; null before the first. */
  lastRunAt: number | null;
  /** How many leads that run erased. */
  lastErased: number | null;
}

/** A run's hold on a team: `owner` until `until`; refused while another owner's lease runs. */
export interface RetentionLease {
  owner: string;
  now: number;
  until: number;
  /**
   * Only a policy whose last run finished at or before this (or never ran) is taken: instances
   * on one schedule do not each run a team that another has just run.
   */
  staleBefore: number;
}

export interface RetentionStore {
  /** Every policy, by team. */
  policies(): Promise<RetentionPolicy[]>;
  /** The team's policy; null when it has none. */
  policy(teamId: number): Promise<RetentionPolicy | null>;
  /** Sets (or replaces) the team's policy; its last run is kept. */
  setPolicy(teamId: number, days: number, at: number): Promise<RetentionPolicy>;
  /** Removes the team's policy; false when it had none. */
  clearPolicy(teamId: number): Promise<boolean>;
  /** How many of the team's leads (not erased, merged ones too) are older than `cutoff`. */
  dueCount(teamId: number, cutoff: number): Promise<number>;
  /** Up to `limit` of those leads' v2 ids, oldest stored first. */
  dueLeads(teamId: number, cutoff: number, limit: number): Promise<string[]>;
  /**
   * Takes (or, for the same owner, renews) the lease of the team's policy, in one statement.
   * Returns the policy's days when taken; null when another run holds it, the policy ran after
   * `staleBefore`, or there is no policy (any more).
   */
  claim(teamId: number, lease: RetentionLease): Promise<number | null>;
  /** Ends the owner's lease and records the run (when the lease is still the owner's). */
  finish(teamId: number, owner: string, at: number, erased: number): Promise<void>;
  /** How many erasure receipts were requested before `before`. */
  receiptsBefore(before: number): Promise<number>;
  /** Deletes the erasure receipts requested before `before`; returns how many. */
  pruneReceipts(before: number): Promise<number>;
}
