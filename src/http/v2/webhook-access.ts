import { requireTeamAdmin } from '../../directory/access.js';
import type { Caller } from '../../directory/directory.js';
import { endpointNotFound } from '../../webhooks/access.js';
import type { EndpointOwner } from '../../webhooks/webhook.js';

/** What the webhook operations share: who may manage endpoints (the rules: src/webhooks/access.ts). */

export const WEBHOOKS_PREFIX = '/api/pub/v2/webhooks';
/** The API's 404 for an endpoint: webhooks/access.ts's, one for every caller of the use cases. */
export const notFound = endpointNotFound;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The caller's team as owner of the endpoint in the path: team admins only (an endpoint receives
 * the whole team's leads); another team's endpoint is the same 404 as a missing one.
 */
export function endpointOf(caller: Caller, params: unknown): { owner: EndpointOwner; id: string } {
  requireTeamAdmin(caller);
  const { endpointId } = params as { endpointId: string };
  if (!UUID.test(endpointId)) throw notFound(endpointId);
  return { owner: { teamId: caller.teamId }, id: endpointId.toLowerCase() };
}
