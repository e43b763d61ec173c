import type { V2Handler } from './context.js';
import { endpointOf, notFound } from './webhook-access.js';

/** DELETE /api/pub/v2/webhooks/{endpointId}: the endpoint and everything waiting for it go; 204. */
export const deleteWebhook: V2Handler = async ({ caller, store }, request, reply) => {
  const { owner, id } = endpointOf(caller, request.params);
  if (!(await store.webhooks.removeEndpoint(owner, id))) throw notFound(id);
  reply.code(204);
  return undefined;
};
