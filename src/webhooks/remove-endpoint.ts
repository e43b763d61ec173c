import type { AuditActor, AuditStore } from '../audit/audit.port.js';
import { recordAudit } from '../audit/record-audit.js';
import { endpointNotFound } from './access.js';
import type { EndpointOwner } from './webhook.js';
import type { WebhookStore } from './webhooks.port.js';

/**
 * Removes the endpoint with everything waiting for it; `not-found` when the owner has no such one.
 * One `webhook.removed` audit record.
 */
export async function removeEndpoint(
  store: { webhooks: WebhookStore; audit: AuditStore },
  input: { owner: EndpointOwner; id: string; actor: AuditActor; now: number },
): Promise<void> {
  const endpoint = await store.webhooks.endpoint(input.owner, input.id);
  if (endpoint === null || !(await store.webhooks.removeEndpoint(input.owner, input.id)))
    throw endpointNotFound(input.id);
  await recordAudit(store, {
    at: input.now,
    teamId: endpoint.teamId,
    actor: input.actor,
    action: 'webhook.removed',
    details: { endpointId: endpoint.id },
  });
}
