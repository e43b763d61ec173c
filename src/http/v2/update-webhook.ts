import { keyActor } from '../../audit/record-audit.js';
import type { HostLookup } from '../../delivery/destination.js';
import { WebhookUpdateBody } from '../../schemas/webhooks.js';
import { assertStorableBody } from '../../shared/storable-text.js';
import { updateEndpoint } from '../../webhooks/update-endpoint.js';
import { endpointToWire } from '../../webhooks/wire.js';
import { validBody } from '../route-schema.js';
import type { V2Handler } from './handler.js';
import { endpointOf } from './webhook-access.js';

/** PATCH /api/pub/v2/webhooks/{endpointId}: changes the URL, event types, includePrevious, filters or enabled. */
export const updateWebhook =
  (lookup: HostLookup): V2Handler =>
  async ({ caller, config, store, now }, request) => {
    const { id } = endpointOf(caller, request.params);
    const body = validBody(request, WebhookUpdateBody);
    assertStorableBody(body);
    const endpoint = await updateEndpoint(
      store,
      config.webhooks,
      {
        teamId: caller.teamId,
        memberId: caller.memberId,
        id,
        changes: {
          url: body.url,
          description: body.description,
          eventTypes: body.eventTypes,
          includePrevious: body.includePrevious,
          payload: body.payload,
          members: body.memberIds,
          subteams: body.subteamIds,
          enabled: body.enabled,
        },
        now,
        actor: keyActor(caller),
      },
      lookup,
    );
    return { data: endpointToWire(endpoint) };
  };
