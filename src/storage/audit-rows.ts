import type {
  AuditAction,
  AuditActor,
  AuditDetails,
  AuditEntry,
  NewAuditEntry,
} from '../audit/audit.port.js';

/** Audit records as both engines store them (migration 13): rows stop here. */

export const AUDIT_COLUMNS = 'at, team_id, actor_via, actor_key, actor_member, action, details';

export interface AuditRow {
  id: number | string;
  at: number | string;
  team_id: number | string | null;
  actor_via: AuditActor['via'];
  actor_key: number | string | null;
  actor_member: number | string | null;
  action: string;
  details: string;
}

/** The record's values in AUDIT_COLUMNS order. */
export function auditValues(
  e: NewAuditEntry,
): [number, number | null, string, number | null, number | null, string, string] {
  const a = e.actor;
  return [
    e.at,
    e.teamId,
    a.via,
    a.via === 'key' ? a.keyId : null,
    a.via === 'key' || a.via === 'console' ? a.memberId : null,
    e.action,
    JSON.stringify(e.details),
  ];
}

function actorOf(r: AuditRow): AuditActor {
  if (r.actor_via === 'key')
    return { via: 'key', keyId: Number(r.actor_key), memberId: Number(r.actor_member) };
  if (r.actor_via === 'console') return { via: 'console', memberId: Number(r.actor_member) };
  return { via: r.actor_via };
}

export function toAuditEntry(r: AuditRow): AuditEntry {
  return {
    id: Number(r.id),
    at: Number(r.at),
    teamId: r.team_id === null ? null : Number(r.team_id),
    actor: actorOf(r),
    action: r.action as AuditAction,
    details: JSON.parse(r.details) as AuditDetails,
  };
}
