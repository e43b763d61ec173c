import { endpointToWire } from '../../webhooks/wire.js';
import type { V2Handler } from './handler.js';
import { endpointOf, notFound } from './webhook-access.js';

/** GET /api/pub/v2/webhooks/{endpointId}: one of the team's endpoints, without its secret. */
export const getWebhook: V2Handler = async ({ caller, store }, request) => {
  const { owner, id } = endpointOf(caller, request.params);
  const endpoint = await store.webhooks.endpoint(owner, id);
  if (endpoint === null) throw notFound(id);
  return { data: endpointToWire(endpoint) };
};
