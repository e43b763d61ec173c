import { endpointNotFound } from './access.js';
import type { EndpointOwner } from './webhook.js';
import type { WebhookStore } from './webhooks.port.js';

/** Removes the endpoint with everything waiting for it; `not-found` when the owner has no such one. */
export async function removeEndpoint(
  store: { webhooks: WebhookStore },
  input: { owner: EndpointOwner; id: string },
): Promise<void> {
  if (!(await store.webhooks.removeEndpoint(input.owner, input.id))) throw endpointNotFound(input.id);
}
