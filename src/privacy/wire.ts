import { leadToV2 } from '../leads/v2-wire.js';
import type { ErasureReceipt as WireReceipt } from '../schemas/privacy.js';
import type { V2Lead } from '../schemas/v2.js';
import { formatInstant } from '../shared/instant.js';
import type { ErasureReceipt } from './erasure.port.js';
import type { SubjectAccessAnswer } from './subject-access.js';

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

/** A subject access answer as the API sends it (docs/privacy.md "Subject access"). */
export interface SubjectAccessWire {
  email: string;
  answeredAt: string;
  leads: {
    lead: V2Lead;
    mergedInto: string | null;
    deliveries: {
      eventId: string;
      type: string;
      endpointId: string;
      endpointHost: string;
      createdAt: string;
      state: string;
      attempts: number;
      lastAttemptAt: string | null;
    }[];
  }[];
}

export function subjectAccessToWire(answer: SubjectAccessAnswer): SubjectAccessWire {
  return {
    email: answer.email,
    answeredAt: formatInstant(answer.answeredAt),
    leads: answer.leads.map(({ lead, deliveries }) => ({
      lead: leadToV2(lead),
      mergedInto: lead.mergedInto,
      deliveries: deliveries.map((d) => ({
        ...d,
        createdAt: formatInstant(d.createdAt),
        lastAttemptAt: d.lastAttemptAt === null ? null : formatInstant(d.lastAttemptAt),
      })),
    })),
  };
}
