import { requireTeamAdmin } from '../../directory/access.js';
import { endpointToWire } from '../../webhooks/wire.js';
import type { V2Handler } from './handler.js';

/** GET /api/pub/v2/webhooks: the caller's team's endpoints, oldest first (team admins). */
export const listWebhooks: V2Handler = async ({ caller, store }) => {
  requireTeamAdmin(caller);
  const endpoints = await store.webhooks.endpoints(caller.teamId);
  return { data: { endpoints: endpoints.map((e) => endpointToWire(e)) } };
};
