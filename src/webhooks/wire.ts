import type { WebhookEndpoint } from '../schemas/webhooks.js';
import { formatInstant } from '../shared/instant.js';
import type { Endpoint, EndpointCreator } from './webhook.js';

/** Endpoint → wire shape; `secret` only in the answers that show it (creation, rotation). */
export function endpointToWire(e: Endpoint, secret?: string): WebhookEndpoint {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    eventTypes: e.eventTypes,
    includePrevious: e.includePrevious,
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
