import type { V2Handler } from './context.js';
import { endpointOf, notFound } from './webhook-access.js';

/** POST /api/pub/v2/webhooks/{endpointId}/test: queues a `webhook.test` event to the endpoint; 202. */
export const testWebhook: V2Handler = async ({ caller, store, now }, request, reply) => {
  const { owner, id } = endpointOf(caller, request.params);
  const eventId = await store.deliveries.sendTest(owner, id, now);
  if (eventId === null) throw notFound(id);
  reply.code(202);
  return { data: { webhookId: eventId } };
};
