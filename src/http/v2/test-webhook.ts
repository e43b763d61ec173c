import { sendTestEvent } from '../../webhooks/send-test-event.js';
import type { V2Handler } from './handler.js';
import { endpointOf } from './webhook-access.js';

/** POST /api/pub/v2/webhooks/{endpointId}/test: queues a `webhook.test` event to the endpoint; 202. */
export const testWebhook: V2Handler = async ({ caller, store, now }, request, reply) => {
  const { owner, id } = endpointOf(caller, request.params);
  const eventId = await sendTestEvent(store, { owner, id, now });
  reply.code(202);
  return { data: { webhookId: eventId } };
};
