import type { WebhookDelivery, WebhookEndpoint } from '../schemas/webhooks.js';
import { formatInstant } from '../shared/instant.js';
import type { DeliveryRecord } from './delivery.js';
import type { Endpoint, EndpointCreator } from './webhook.js';

/** Endpoint → wire shape; `secret` only in the answers that show it (creation, rotation). */
export function endpointToWire(e: Endpoint, secret?: string): WebhookEndpoint {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    eventTypes: e.eventTypes,
    includePrevious: e.includePrevious,
    payload: e.payload,
    memberIds: e.members,
    subteamIds: e.subteams,
    enabled: e.enabled,
    disabledReason: e.disabledReason,
    createdBy: e.createdBy,
    createdAt: formatInstant(e.createdAt),
    updatedAt: formatInstant(e.updatedAt),
    ...(secret === undefined ? {} : { secret }),
  };
}

/**
 * Who created an endpoint, for people: `member 3 (a@b.test), key 12`, marked `(removed)` /
 * `(revoked)` when that no longer holds; `the operator (CLI)`; `unknown` for an endpoint made
 * before leadline recorded it. `emails`: the members whose address may be shown.
 */
export function creatorText(c: EndpointCreator | null, emails: Map<number, string> = new Map()): string {
  if (c === null) return 'unknown';
  if (c.via === 'cli') return 'the operator (CLI)';
  const email = c.memberId === null ? undefined : emails.get(c.memberId);
  const member = `member ${c.memberId}${email === undefined ? '' : ` (${email})`}${c.memberRemoved ? ' (removed)' : ''}`;
  return `${member}, key ${c.keyId}${c.keyRevoked ? ' (revoked)' : ''}`;
}

/** Delivery → wire shape (GET /api/pub/v2/webhooks/{endpointId}/deliveries): instants as text. */
export function deliveryToWire(d: DeliveryRecord): WebhookDelivery {
  const at = (ms: number | null) => (ms === null ? null : formatInstant(ms));
  return {
    id: d.id,
    eventId: d.eventId,
    type: d.type,
    state: d.state,
    createdAt: formatInstant(d.createdAt),
    nextAttemptAt: d.state === 'pending' ? at(d.nextAttemptAt) : null,
    finishedAt: at(d.finishedAt),
    attempts: d.attempts.map((a) => ({
      at: formatInstant(a.at),
      status: a.status,
      latencyMs: a.latencyMs,
      answer: a.answer,
    })),
  };
}
