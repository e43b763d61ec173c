import type { ErasureReceipt as WireReceipt } from '../schemas/privacy.js';
import { formatInstant } from '../shared/instant.js';
import type { ErasureReceipt } from './erasure.port.js';

/** A receipt as the API and `leadline erase` show it (docs/privacy.md "Receipts"). */
export function receiptToWire(r: ErasureReceipt): WireReceipt {
  return {
    erasureId: r.id,
    teamId: r.teamId,
    requestedAt: formatInstant(r.requestedAt),
    requestedBy: r.requestedBy,
    emailHash: r.emailHash,
    leadIds: r.leadIds,
    counts: r.counts,
  };
}
