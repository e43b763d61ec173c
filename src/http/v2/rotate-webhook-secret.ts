import { keyActor } from '../../audit/record-audit.js';
import { rotateSecret } from '../../webhooks/rotate-secret.js';
import { endpointToWire } from '../../webhooks/wire.js';
import type { V2Handler } from './handler.js';
import { endpointOf } from './webhook-access.js';

/**
 * POST /api/pub/v2/webhooks/{endpointId}/rotate-secret: a new signing secret, shown this once.
 * Deliveries are signed with both for the grace period (LEADLINE_WEBHOOK_ROTATION_GRACE_HOURS),
 * so a receiver can switch without refusing a delivery.
 */
export const rotateWebhookSecret: V2Handler = async ({ caller, config, store, now }, request) => {
  const { owner, id } = endpointOf(caller, request.params);
  const { endpoint, secret } = await rotateSecret(store, config.webhooks, {
    owner,
    id,
    now,
    actor: keyActor(caller),
  });
  return { data: endpointToWire(endpoint, secret) };
};
