import { formatInstant } from '../shared/instant.js';
import type { RetentionPolicy } from './retention.port.js';
import type { RetentionRun } from './retention-run.js';

/** A policy as `leadline retention list --json` shows it. */
export function policyToWire(p: RetentionPolicy) {
  return {
    teamId: p.teamId,
    days: p.days,
    basis: p.basis,
    setAt: formatInstant(p.setAt),
    lastRunAt: p.lastRunAt === null ? null : formatInstant(p.lastRunAt),
    lastErased: p.lastErased,
  };
}

/** A run as `leadline retention run --json` shows it. */
export function runToWire(run: RetentionRun) {
  return {
    at: formatInstant(run.at),
    dryRun: run.dryRun,
    teams: run.teams.map((t) => ({ ...t, cutoff: formatInstant(t.cutoff) })),
    receipts:
      run.receipts === null
        ? null
        : { before: formatInstant(run.receipts.before), pruned: run.receipts.pruned },
  };
}
