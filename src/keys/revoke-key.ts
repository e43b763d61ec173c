import type { AuditActor, AuditStore } from '../audit/audit.port.js';
import { recordAudit } from '../audit/record-audit.js';
import { findKey } from './find-key.js';
import type { KeyStore } from './keys.port.js';

/**
 * Revokes a key: refused from its next request on, on every instance. A team admin (`teamId`)
 * revokes their team's keys only, the operator (`teamId` null) any. False when there is no such
 * key for the one asking, or it was revoked already. A revocation leaves one `key.revoked` audit record.
 */
export async function revokeKey(
  store: { keys: KeyStore; audit: AuditStore },
  input: { keyId: number; teamId: number | null; now: number; actor: AuditActor },
): Promise<boolean> {
  const key = await findKey(store, input);
  if (key === null || !(await store.keys.revoke(input.keyId, input.now))) return false;
  await recordAudit(store, {
    at: input.now,
    teamId: key.teamId,
    actor: input.actor,
    action: 'key.revoked',
    details: { keyId: key.id, memberId: key.memberId },
  });
  return true;
}
