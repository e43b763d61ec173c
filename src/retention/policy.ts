import type { AuditActor, AuditStore } from '../audit/audit.port.js';
import { recordAudit } from '../audit/record-audit.js';
import { AppError, invalidParams } from '../shared/errors.js';
import type { RetentionPolicy, RetentionStore } from './retention.port.js';

/** The longest policy: a hundred years, in days. */
export const MAX_RETENTION_DAYS = 36_500;

export interface PolicyPorts {
  retention: RetentionStore;
  directory: { team(id: number): Promise<unknown> };
  audit: AuditStore;
}

async function requireTeam(ports: PolicyPorts, teamId: number): Promise<void> {
  if ((await ports.directory.team(teamId)) === null) throw new AppError('not-found', `No team ${teamId}.`);
}

/**
 * Sets a team's retention policy (docs/privacy.md "Retention"): its leads not changed for more
 * than `days` days (captured that long ago, when never changed) are erased by the next run. The
 * operator sets any team's; a team admin their own (the console keeps them to it). One
 * `retention.policy_set` audit record, with the days before (null: none).
 */
export async function setRetention(
  ports: PolicyPorts,
  input: { teamId: number; days: number; now: number; actor: AuditActor },
): Promise<RetentionPolicy> {
  if (!Number.isInteger(input.days) || input.days < 1 || input.days > MAX_RETENTION_DAYS)
    throw invalidParams([
      { name: '/days', reason: `a whole number of days from 1 to ${MAX_RETENTION_DAYS}` },
    ]);
  await requireTeam(ports, input.teamId);
  const before = await ports.retention.policy(input.teamId);
  const policy = await ports.retention.setPolicy(input.teamId, input.days, input.now);
  await recordAudit(ports, {
    at: input.now,
    teamId: input.teamId,
    actor: input.actor,
    action: 'retention.policy_set',
    details: { days: policy.days, previousDays: before?.days ?? null },
  });
  return policy;
}

/**
 * Removes a team's policy: its leads are kept until erased otherwise. False when it had none;
 * otherwise one `retention.policy_cleared` audit record.
 */
export async function clearRetention(
  ports: PolicyPorts,
  input: { teamId: number; now: number; actor: AuditActor },
): Promise<boolean> {
  await requireTeam(ports, input.teamId);
  const before = await ports.retention.policy(input.teamId);
  if (!(await ports.retention.clearPolicy(input.teamId))) return false;
  await recordAudit(ports, {
    at: input.now,
    teamId: input.teamId,
    actor: input.actor,
    action: 'retention.policy_cleared',
    details: { previousDays: before?.days ?? null },
  });
  return true;
}

/** Every team's policy, or one team's (an empty list when it has none). */
export async function retentionPolicies(
  ports: { retention: RetentionStore },
  teamId: number | null = null,
): Promise<RetentionPolicy[]> {
  if (teamId === null) return ports.retention.policies();
  const one = await ports.retention.policy(teamId);
  return one === null ? [] : [one];
}
