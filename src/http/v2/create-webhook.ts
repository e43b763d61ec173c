import { keyActor } from '../../audit/record-audit.js';
import type { HostLookup } from '../../delivery/destination.js';
import { requireTeamAdmin } from '../../directory/access.js';
import { WebhookCreateBody } from '../../schemas/webhooks.js';
import { assertStorableBody } from '../../shared/storable-text.js';
import { registerEndpoint } from '../../webhooks/register-endpoint.js';
import { endpointToWire } from '../../webhooks/wire.js';
import { validBody } from '../route-schema.js';
import type { V2Handler } from './handler.js';
import { WEBHOOKS_PREFIX } from './webhook-access.js';

/**
 * POST /api/pub/v2/webhooks: registers an endpoint for the caller's team (team admins). The
 * answer carries the signing secret, shown this once. Leads stored from now on are sent to it.
 */
export const createWebhook =
  (lookup: HostLookup): V2Handler =>
  async ({ caller, config, store, now }, request, reply) => {
    requireTeamAdmin(caller);
    const body = validBody(request, WebhookCreateBody);
    assertStorableBody(body);
    const { endpoint, secret } = await registerEndpoint(
      store,
      config.webhooks,
      {
        teamId: caller.teamId,
        by: { via: 'api', memberId: caller.memberId, keyId: caller.keyId },
        url: body.url,
        description: body.description ?? null,
        eventTypes: body.eventTypes,
        includePrevious: body.includePrevious,
        payload: body.payload,
        members: body.memberIds ?? null,
        subteams: body.subteamIds ?? null,
        now,
        actor: keyActor(caller),
      },
      lookup,
    );
    reply.code(201).header('location', `${WEBHOOKS_PREFIX}/${endpoint.id}`);
    return { data: endpointToWire(endpoint, secret) };
  };
