import { WebhookRecoverBody } from '../../schemas/webhooks.js';
import { invalidParams } from '../../shared/errors.js';
import { parseInstant } from '../../shared/instant.js';
import { replayFailedDeliveries } from '../../webhooks/replay-failed-deliveries.js';
import { validBody } from '../route-schema.js';
import type { V2Handler } from './handler.js';
import { endpointOf, notFound } from './webhook-access.js';

/**
 * POST /api/pub/v2/webhooks/{endpointId}/recover: sends again every failed delivery of events
 * since `since` — what `leadline webhooks replay --endpoint --since` does, through the same use
 * case. Each becomes pending, due now; one already pending again is not taken twice. 202.
 */
export const recoverWebhook: V2Handler = async ({ caller, store, now }, request, reply) => {
  const { owner, id } = endpointOf(caller, request.params);
  const body = validBody(request, WebhookRecoverBody);
  const since = parseInstant(body.since);
  if (since === null)
    throw invalidParams([
      { name: '/since', reason: 'an RFC 3339 instant with its offset, e.g. 2026-11-29T08:00:00Z' },
    ]);
  if (since > now) throw invalidParams([{ name: '/since', reason: 'is in the future' }]);
  if ((await store.webhooks.endpoint(owner, id)) === null) throw notFound(id);
  const recovered = await replayFailedDeliveries(store, { owner, endpointId: id, since, now });
  reply.code(202);
  return { data: { recovered } };
};
