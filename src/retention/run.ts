import { randomUUID } from 'node:crypto';
import type { AuditStore } from '../audit/audit.port.js';
import { MAX_ERASED_IDS } from '../privacy/erase.js';
import type { ErasureStore } from '../privacy/erasure.port.js';
import { uuid7 } from '../shared/uuid7.js';
import { recordRetentionRun } from './record-run.js';
import type { RetentionPolicy, RetentionStore } from './retention.port.js';
import type { RetentionRun, RetentionRunner, TeamRetention } from './retention-run.js';

const DAY_MS = 86_400_000;
/** A run holds a team this long, renewed after every batch; a crashed run's lease runs out. */
export const RETENTION_LEASE_MS = 10 * 60_000;

export interface RetentionRunInput {
  /** One team's policy; absent: every team's (and the receipts are pruned). */
  teamId?: number;
  /** Count what is due; change nothing. */
  dryRun: boolean;
  now: number;
  by: RetentionRunner;
  /** Erasure receipts older than this many days are pruned (LEADLINE_ERASURE_RECEIPT_DAYS). */
  receiptDays: number;
  /** Skip a team whose last run finished after this (the schedule's); default: run every one. */
  staleBefore?: number;
  /** Asked between batches: true stops the run there (a server shutting down). */
  stopping?: () => boolean;
}

export interface RetentionPorts {
  retention: RetentionStore;
  erasures: ErasureStore;
  audit: AuditStore;
}

/**
 * Runs the retention policies (docs/privacy.md "Retention"): for each team, its due leads are
 * erased by lead ids in batches, each an erasure with a receipt requested by the policy, no
 * suppression (no person asked); then the receipts past their keeping time are pruned. A team
 * is taken by a lease first, so two instances never erase it at once. The freed space is
 * reclaimed once at the end. `leadline retention run` and the server's schedule both run here.
 */
export async function runRetention(ports: RetentionPorts, input: RetentionRunInput): Promise<RetentionRun> {
  const all = await ports.retention.policies();
  const policies = input.teamId === undefined ? all : all.filter((p) => p.teamId === input.teamId);
  const teams: TeamRetention[] = [];
  for (const policy of policies) {
    if (input.stopping?.() === true) break;
    teams.push(
      input.dryRun ? await countTeam(ports, policy, input.now) : await runTeam(ports, policy, input),
    );
  }
  const before = input.now - input.receiptDays * DAY_MS;
  const receipts =
    input.teamId !== undefined
      ? null
      : {
          before,
          pruned: input.dryRun
            ? await ports.retention.receiptsBefore(before)
            : await ports.retention.pruneReceipts(before),
        };
  if (teams.some((t) => t.erased > 0)) await ports.erasures.reclaim();
  const run: RetentionRun = { at: input.now, dryRun: input.dryRun, by: input.by, teams, receipts };
  if (!input.dryRun) await recordRetentionRun(ports, run);
  return run;
}

const cutoffOf = (policy: RetentionPolicy, now: number) => now - policy.days * DAY_MS;

async function countTeam(
  ports: RetentionPorts,
  policy: RetentionPolicy,
  now: number,
): Promise<TeamRetention> {
  const cutoff = cutoffOf(policy, now);
  const due = await ports.retention.dueCount(policy.teamId, cutoff);
  return { teamId: policy.teamId, days: policy.days, cutoff, due, erased: 0, erasureIds: [], skipped: false };
}

async function runTeam(
  ports: RetentionPorts,
  policy: RetentionPolicy,
  input: RetentionRunInput,
): Promise<TeamRetention> {
  const { teamId } = policy;
  const owner = randomUUID();
  // The lease is kept by the wall clock: other instances' runs read it.
  const lease = () => ({
    owner,
    now: Date.now(),
    until: Date.now() + RETENTION_LEASE_MS,
    staleBefore: input.staleBefore ?? input.now,
  });
  const days = await ports.retention.claim(teamId, lease());
  const cutoff = cutoffOf({ ...policy, days: days ?? policy.days }, input.now);
  const result: TeamRetention = {
    teamId,
    days: days ?? policy.days,
    cutoff,
    due: 0,
    erased: 0,
    erasureIds: [],
    skipped: days === null,
  };
  if (days === null) return result;
  try {
    result.due = await ports.retention.dueCount(teamId, cutoff);
    await eraseDue(ports, result, input, async () => (await ports.retention.claim(teamId, lease())) !== null);
  } finally {
    await ports.retention.finish(teamId, owner, input.now, result.erased);
  }
  return result;
}

/**
 * The team's due leads erased batch by batch into `team` (its erased count and receipts), each
 * erasure checking under its lock that a lead is still due; `renew` extends the lease after
 * each batch, and the run stops when it could not, or when the server is stopping.
 */
async function eraseDue(
  ports: RetentionPorts,
  team: TeamRetention,
  input: RetentionRunInput,
  renew: () => Promise<boolean>,
): Promise<void> {
  const { teamId, days, cutoff } = team;
  for (let held = true; held && input.stopping?.() !== true; ) {
    const leadIds = await ports.retention.dueLeads(teamId, cutoff, MAX_ERASED_IDS);
    if (leadIds.length === 0) return;
    const receipt = await ports.erasures.erase({
      id: uuid7(input.now),
      teamId,
      requestedBy: { via: 'retention', days },
      at: input.now,
      emailHash: null,
      leadIds: leadIds.length,
      leads: leadIds.map((uuid) => ({ teamId, uuid })),
      suppress: null,
      dueBefore: cutoff,
      actor: null, // the run's own audit record names its receipts (record-run.ts)
    });
    team.erasureIds.push(receipt.id);
    team.erased += receipt.counts.leads;
    // Nothing erased (every one changed or erased meanwhile): leave the rest to the next run.
    if (receipt.counts.leads === 0) return;
    held = await renew();
  }
}
