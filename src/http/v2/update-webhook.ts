import type { HostLookup } from '../../delivery/destination.js';
import { WebhookUpdateBody } from '../../schemas/webhooks.js';
import { assertStorableBody } from '../../shared/storable-text.js';
import { endpointToWire } from '../../webhooks/wire.js';
import { validator } from '../validate.js';
import type { V2Handler } from './context.js';
import { checkFilters, checkUrl, endpointOf, notFound } from './webhook-access.js';

const checkBody = validator(WebhookUpdateBody);

/** PATCH /api/pub/v2/webhooks/{endpointId}: changes the URL, event types, filters or enabled. */
export const updateWebhook =
  (lookup: HostLookup): V2Handler =>
  async ({ caller, config, store, now }, request) => {
    const { owner, id } = endpointOf(caller, request.params);
    const body = checkBody(request.body);
    assertStorableBody(body);
    if (body.url !== undefined) await checkUrl(body.url, config, lookup);
    await checkFilters(store, caller, body.memberIds, body.subteamIds);
    const endpoint = await store.webhooks.updateEndpoint(
      owner,
      id,
      {
        url: body.url,
        description: body.description,
        eventTypes: body.eventTypes,
        members: body.memberIds,
        subteams: body.subteamIds,
        enabled: body.enabled,
      },
      now,
    );
    if (endpoint === null) throw notFound(id);
    return { data: endpointToWire(endpoint) };
  };
