import { keyActor } from '../../audit/record-audit.js';
import { removeEndpoint } from '../../webhooks/remove-endpoint.js';
import type { V2Handler } from './handler.js';
import { endpointOf } from './webhook-access.js';

/** DELETE /api/pub/v2/webhooks/{endpointId}: the endpoint and everything waiting for it go; 204. */
export const deleteWebhook: V2Handler = async ({ caller, store, now }, request, reply) => {
  const { owner, id } = endpointOf(caller, request.params);
  await removeEndpoint(store, { owner, id, actor: keyActor(caller), now });
  reply.code(204);
  return undefined;
};
