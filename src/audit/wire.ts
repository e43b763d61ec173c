import { formatInstant } from '../shared/instant.js';
import type { AuditActor, AuditDetails, AuditEntry } from './audit.port.js';

/** An audit record as the API, the command line and the export give it. */
export interface AuditRecordWire {
  id: string;
  at: string;
  teamId: number | null;
  actor: AuditActor;
  action: string;
  details: AuditDetails;
}

export function auditToWire(e: AuditEntry): AuditRecordWire {
  return {
    id: String(e.id),
    at: formatInstant(e.at),
    teamId: e.teamId,
    actor: e.actor,
    action: e.action,
    details: e.details,
  };
}
