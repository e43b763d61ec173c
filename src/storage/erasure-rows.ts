import type {
  ErasureCounts,
  ErasureReceipt,
  ErasureRequester,
  Suppression,
} from '../privacy/erasure.port.js';

/** Erasure receipts and suppressions as both engines store them (migration 12): rows stop here. */

export const RECEIPT_COLUMNS =
  'id, team_id, requested_via, requested_by_key, requested_by_member, requested_at, email_hash, lead_ids, counts, retention_days';

export interface ReceiptRow {
  id: string;
  team_id: number | null;
  requested_via: 'key' | 'operator' | 'retention' | 'console';
  requested_by_key: number | null;
  requested_by_member: number | null;
  requested_at: number;
  email_hash: string | null;
  lead_ids: number;
  counts: string;
  /** The policy's days of a retention erasure (migration 14); null otherwise. */
  retention_days: number | null;
}

export function toReceipt(r: ReceiptRow): ErasureReceipt {
  const requestedBy: ErasureRequester =
    r.requested_via === 'key'
      ? { via: 'key', keyId: Number(r.requested_by_key), memberId: Number(r.requested_by_member) }
      : r.requested_via === 'retention'
        ? { via: 'retention', days: Number(r.retention_days) }
        : r.requested_via === 'console'
          ? { via: 'console', memberId: Number(r.requested_by_member) }
          : { via: 'operator' };
  return {
    id: String(r.id),
    teamId: r.team_id === null ? null : Number(r.team_id),
    requestedBy,
    requestedAt: Number(r.requested_at),
    emailHash: r.email_hash,
    leadIds: Number(r.lead_ids),
    counts: JSON.parse(r.counts) as ErasureCounts,
  };
}

/** The receipt row's values in RECEIPT_COLUMNS order. */
export function receiptValues(r: ErasureReceipt): unknown[] {
  const by = r.requestedBy;
  return [
    r.id,
    r.teamId,
    by.via,
    by.via === 'key' ? by.keyId : null,
    by.via === 'key' || by.via === 'console' ? by.memberId : null,
    r.requestedAt,
    r.emailHash,
    r.leadIds,
    JSON.stringify(r.counts),
    by.via === 'retention' ? by.days : null,
  ];
}

export const noCounts = (): ErasureCounts => ({
  leads: 0,
  mergedLeads: 0,
  searchRows: 0,
  webhookEvents: 0,
  webhookDeliveries: 0,
  webhookAttempts: 0,
  idempotencyKeys: 0,
});

export interface SuppressionRow {
  team_id: number | null;
  email_hash: string;
  created_at: number;
  erasure_id: string | null;
}

export function toSuppression(r: SuppressionRow): Suppression {
  return {
    teamId: r.team_id === null ? null : Number(r.team_id),
    emailHash: r.email_hash,
    createdAt: Number(r.created_at),
    erasureId: r.erasure_id === null ? null : String(r.erasure_id),
  };
}

/**
 * What the erased lead's change says it came from: a key's request (api), or the operator's side
 * (cli) — the command line, or a retention policy the server runs for the operator.
 */
export const erasureSource = (by: ErasureRequester): 'api' | 'cli' => (by.via === 'key' ? 'api' : 'cli');
