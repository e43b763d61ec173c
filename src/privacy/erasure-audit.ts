import type { AuditActor, NewAuditEntry } from '../audit/audit.port.js';
import type { ErasureReceipt } from './erasure.port.js';

/**
 * The one `lead.erased` audit record of an erasure (docs/privacy.md "Audit log"): the receipt's
 * id and counts, never the e-mail nor its hash. Each engine writes it inside the erasure's
 * transaction, so an erasure and its record commit together.
 */
export function erasureAuditEntry(receipt: ErasureReceipt, actor: AuditActor): NewAuditEntry {
  return {
    at: receipt.requestedAt,
    teamId: receipt.teamId,
    actor,
    action: 'lead.erased',
    details: {
      erasureId: receipt.id,
      byEmail: receipt.emailHash !== null,
      leadIds: receipt.leadIds,
      ...receipt.counts,
    },
  };
}
