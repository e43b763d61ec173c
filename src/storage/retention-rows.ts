import type { RetentionPolicy } from '../retention/retention.port.js';

/** Retention policies as both engines store them (migration 14): rows stop here. */

export const POLICY_COLUMNS = 'team_id, days, basis, set_at, last_run_at, last_erased';

export interface PolicyRow {
  team_id: number;
  days: number;
  basis: string;
  set_at: number;
  last_run_at: number | null;
  last_erased: number | null;
}

export function toPolicy(r: PolicyRow): RetentionPolicy {
  return {
    teamId: Number(r.team_id),
    days: Number(r.days),
    basis: 'last-change',
    setAt: Number(r.set_at),
    lastRunAt: r.last_run_at === null ? null : Number(r.last_run_at),
    lastErased: r.last_erased === null ? null : Number(r.last_erased),
  };
}

/**
 * The leads a policy makes due, as a condition on `leads` (alias none) with two parameters, both
 * the cutoff: not erased, captured before it and not changed since (a lead never changed has no
 * `changed_at`). The team's capture-time index (team_id, epoch, seq) finds them.
 */
export const DUE = (p: (n: number) => string) =>
  `team_id = ${p(1)} AND erased_at IS NULL AND epoch < ${p(2)} AND (changed_at IS NULL OR changed_at < ${p(3)})`;
