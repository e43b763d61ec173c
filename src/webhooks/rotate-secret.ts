import type { AuditActor, AuditStore } from '../audit/audit.port.js';
import { recordAudit } from '../audit/record-audit.js';
import type { WebhookConfig } from '../config.js';
import { endpointNotFound } from './access.js';
import type { RegisteredEndpoint } from './register-endpoint.js';
import { newSigningSecret, SecretSeal } from './secret.js';
import type { EndpointOwner } from './webhook.js';
import type { WebhookStore } from './webhooks.port.js';

/**
 * A new signing secret for the endpoint, returned this once; the one before keeps signing beside
 * it for LEADLINE_WEBHOOK_ROTATION_GRACE_HOURS, so a receiver can switch without refusing a delivery.
 */
export async function rotateSecret(
  store: { webhooks: WebhookStore; audit: AuditStore },
  config: WebhookConfig,
  input: { owner: EndpointOwner; id: string; now: number; actor: AuditActor },
): Promise<RegisteredEndpoint> {
  const secret = newSigningSecret();
  const sealed = new SecretSeal(config.secretKey).seal(secret);
  const endpoint = await store.webhooks.rotateSecret(
    input.owner,
    input.id,
    sealed,
    input.now + config.rotationGraceMs,
    input.now,
  );
  if (endpoint === null) throw endpointNotFound(input.id);
  await recordAudit(store, {
    at: input.now,
    teamId: endpoint.teamId,
    actor: input.actor,
    action: 'webhook.secret_rotated',
    details: { endpointId: endpoint.id },
  });
  return { endpoint, secret };
}
