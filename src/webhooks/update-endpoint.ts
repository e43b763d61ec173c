import type { AuditActor, AuditStore } from '../audit/audit.port.js';
import { recordAudit } from '../audit/record-audit.js';
import type { WebhookConfig } from '../config.js';
import type { DirectoryStore } from '../directory/directory.port.js';
import { checkFilters, checkUrl, endpointNotFound } from './access.js';
import type { HostLookup } from './address.js';
import type { Endpoint, EndpointChanges } from './webhook.js';
import type { WebhookStore } from './webhooks.port.js';

export interface UpdateEndpointInput {
  /** The team admin asking: its team owns the endpoint (another team's is not found). */
  teamId: number;
  /** The member asking (null: the operator, `leadline webhooks update`). */
  memberId: number | null;
  id: string;
  changes: EndpointChanges;
  now: number;
  /** Who the audit log names. */
  actor: AuditActor;
}

/**
 * Changes an endpoint's URL, description, event types, includePrevious, payload, filters or enabled, under the rules of
 * registration (register-endpoint.ts): a new URL may receive webhooks, filters name the team's own.
 */
export async function updateEndpoint(
  store: { webhooks: WebhookStore; directory: DirectoryStore; audit: AuditStore },
  config: WebhookConfig,
  input: UpdateEndpointInput,
  lookup: HostLookup,
): Promise<Endpoint> {
  const { changes } = input;
  if (changes.url !== undefined) await checkUrl(changes.url, config, lookup);
  await checkFilters(store.directory, input.teamId, input.memberId, changes.members, changes.subteams);
  const endpoint = await store.webhooks.updateEndpoint(
    { teamId: input.teamId },
    input.id,
    changes,
    input.now,
  );
  if (endpoint === null) throw endpointNotFound(input.id);
  await recordAudit(store, {
    at: input.now,
    teamId: endpoint.teamId,
    actor: input.actor,
    action: 'webhook.updated',
    // Which members changed, never their values (a URL may hold a receiver's token).
    details: {
      endpointId: endpoint.id,
      changed: Object.entries(changes)
        .filter(([, v]) => v !== undefined)
        .map(([k]) => k)
        .sort(),
    },
  });
  return endpoint;
}
