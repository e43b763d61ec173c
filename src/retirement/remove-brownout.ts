import type { AuditActor, AuditStore } from '../audit/audit.port.js';
import { recordAudit } from '../audit/record-audit.js';
import type { RetirementStore } from './retirement.port.js';

/** Removes a brownout window; false when there is no such one. One `brownout.removed` audit record. */
export async function removeBrownout(
  store: { retirement: RetirementStore; audit: AuditStore },
  input: { id: number; actor: AuditActor; now: number },
): Promise<boolean> {
  if (!(await store.retirement.removeBrownout(input.id))) return false;
  await recordAudit(store, {
    at: input.now,
    teamId: null,
    actor: input.actor,
    action: 'brownout.removed',
    details: { brownoutId: input.id },
  });
  return true;
}
