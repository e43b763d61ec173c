import { endpointNotFound } from './access.js';
import type { DeliveryStore } from './deliveries.port.js';
import type { EndpointOwner } from './webhook.js';

/** Queues a `webhook.test` event to the endpoint; its webhook-id. */
export async function sendTestEvent(
  store: { deliveries: DeliveryStore },
  input: { owner: EndpointOwner; id: string; now: number },
): Promise<string> {
  const eventId = await store.deliveries.sendTest(input.owner, input.id, input.now);
  if (eventId === null) throw endpointNotFound(input.id);
  return eventId;
}
