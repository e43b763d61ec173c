import type { AuditStore } from '../audit/audit.port.js';
import { recordAudit } from '../audit/record-audit.js';
import type { RetentionRun } from './retention-run.js';

/**
 * The audit log's `retention.run` records (docs/privacy.md "Audit log"), after every retention
 * run that could change something (not a dry run), by the schedule and by `leadline retention
 * run` alike: one per team that lost leads — its policy's days, the leads erased and the
 * receipts, no personal value; the erasures of the run write no record of their own. A team
 * whose run erased nothing leaves none (an hourly schedule would fill the log with nothing);
 * the policy's `lastRunAt` says when it last ran.
 */
export async function recordRetentionRun(ports: { audit: AuditStore }, run: RetentionRun): Promise<void> {
  const actor = run.by.via === 'schedule' ? ({ via: 'server' } as const) : ({ via: 'operator' } as const);
  for (const team of run.teams) {
    if (team.skipped || team.erased === 0) continue;
    await recordAudit(ports, {
      at: run.at,
      teamId: team.teamId,
      actor,
      action: 'retention.run',
      details: { days: team.days, leads: team.erased, erasureIds: team.erasureIds },
    });
  }
}
