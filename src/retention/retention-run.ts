/** What a retention run did (docs/privacy.md "Retention"): run.ts makes it, record-run.ts and the transports read it. */

/** Who started a run: the server's schedule, or the operator (`leadline retention run`). */
export type RetentionRunner = { via: 'schedule' } | { via: 'operator' };

/** One team's part of a run. */
export interface TeamRetention {
  teamId: number;
  days: number;
  /** Leads last changed before this were due. */
  cutoff: number;
  /** Leads due when the team's run began (on a dry run: what a run would erase now). */
  due: number;
  /** Leads erased (leads merged into a due one are erased with it, and counted). */
  erased: number;
  /** The receipts of the erasures, one per batch of at most MAX_ERASED_IDS leads. */
  erasureIds: string[];
  /** Not run: another run holds the team, or it ran a moment ago (the schedule's). */
  skipped: boolean;
}

export interface RetentionRun {
  at: number;
  dryRun: boolean;
  by: RetentionRunner;
  teams: TeamRetention[];
  /** Receipts pruned (or, dry, that would be) — requested before `before`; null for one team's run. */
  receipts: { before: number; pruned: number } | null;
}
