import type { HostLookup } from '../../delivery/destination.js';
import { requireTeamAdmin } from '../../directory/access.js';
import { WebhookCreateBody } from '../../schemas/webhooks.js';
import { assertStorableBody } from '../../shared/storable-text.js';
import { newSigningSecret, SecretSeal } from '../../webhooks/secret.js';
import { EVENT_TYPES } from '../../webhooks/webhook.js';
import { endpointToWire } from '../../webhooks/wire.js';
import { validator } from '../validate.js';
import type { V2Handler } from './context.js';
import { checkFilters, checkUrl, WEBHOOKS_PREFIX } from './webhook-access.js';

const checkBody = validator(WebhookCreateBody);

/**
 * POST /api/pub/v2/webhooks: registers an endpoint for the caller's team (team admins). The
 * answer carries the signing secret, shown this once. Leads stored from now on are sent to it.
 */
export const createWebhook =
  (lookup: HostLookup): V2Handler =>
  async ({ caller, config, store, now }, request, reply) => {
    requireTeamAdmin(caller);
    const body = checkBody(request.body);
    assertStorableBody(body);
    await checkUrl(body.url, config, lookup);
    await checkFilters(store, caller, body.memberIds, body.subteamIds);
    const secret = newSigningSecret();
    const endpoint = await store.webhooks.addEndpoint(
      {
        teamId: caller.teamId,
        url: body.url,
        description: body.description ?? null,
        eventTypes: body.eventTypes ?? [...EVENT_TYPES],
        members: body.memberIds ?? null,
        subteams: body.subteamIds ?? null,
        secret: new SecretSeal(config.webhooks.secretKey).seal(secret),
        createdBy: { via: 'api', memberId: caller.memberId, keyId: caller.keyId },
        createdAt: now,
      },
      config.webhooks.maxEndpoints,
    );
    reply.code(201).header('location', `${WEBHOOKS_PREFIX}/${endpoint.id}`);
    return { data: endpointToWire(endpoint, secret) };
  };
