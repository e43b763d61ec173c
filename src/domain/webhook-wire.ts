import type { WebhookEndpoint } from '../schemas/webhooks.js';
import { formatInstant } from './instant.js';
import type { Endpoint } from './webhook.js';

/** Endpoint → wire shape; `secret` only in the answers that show it (creation, rotation). */
export function endpointToWire(e: Endpoint, secret?: string): WebhookEndpoint {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    eventTypes: e.eventTypes,
    memberIds: e.members,
    subteamIds: e.subteams,
    enabled: e.enabled,
    disabledReason: e.disabledReason,
    createdAt: formatInstant(e.createdAt),
    updatedAt: formatInstant(e.updatedAt),
    ...(secret === undefined ? {} : { secret }),
  };
}
