import type { Caller } from '../directory/directory.js';
import type { AuditActor, AuditEntry, AuditStore, NewAuditEntry } from './audit.port.js';

/**
 * Appends one record to the audit log (docs/privacy.md "Audit log"). Every audited use case
 * calls it once its action has committed; erasure writes its record inside its own transaction
 * (src/privacy/erase.ts). `retention.run` is written by src/retention/record-run.ts.
 */
export function recordAudit(ports: { audit: AuditStore }, entry: NewAuditEntry): Promise<AuditEntry> {
  return ports.audit.record(entry);
}

/** The actor of an API key's request. */
export function keyActor(caller: Pick<Caller, 'keyId' | 'memberId'>): AuditActor {
  return { via: 'key', keyId: caller.keyId, memberId: caller.memberId };
}

/**
 * A bulk read (a v1 range or a v2 search page) that returned more than `threshold` leads
 * (LEADLINE_AUDIT_BULK_READ): one `leads.bulk_read` record; false when it was not bulk.
 */
export async function recordBulkRead(
  ports: { audit: AuditStore },
  input: { caller: Caller; operation: string; count: number; threshold: number; at: number },
): Promise<boolean> {
  if (input.count <= input.threshold) return false;
  await recordAudit(ports, {
    at: input.at,
    teamId: input.caller.teamId,
    actor: keyActor(input.caller),
    action: 'leads.bulk_read',
    details: { operation: input.operation, count: input.count, keyId: input.caller.keyId },
  });
  return true;
}
