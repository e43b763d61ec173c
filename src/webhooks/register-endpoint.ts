import type { AuditActor, AuditStore } from '../audit/audit.port.js';
import { recordAudit } from '../audit/record-audit.js';
import type { WebhookConfig } from '../config.js';
import type { DirectoryStore } from '../directory/directory.port.js';
import { AppError } from '../shared/errors.js';
import { checkFilters, checkUrl } from './access.js';
import type { HostLookup } from './address.js';
import { newSigningSecret, SecretSeal } from './secret.js';
import {
  DEFAULT_EVENT_TYPES,
  type Endpoint,
  type EndpointCreator,
  type EventType,
  type PayloadForm,
} from './webhook.js';
import type { WebhookStore } from './webhooks.port.js';

export interface RegisterEndpointInput {
  teamId: number;
  /** A team admin through the API (its member and key), or the operator (`leadline webhooks add`). */
  by: Pick<EndpointCreator, 'via' | 'memberId' | 'keyId'>;
  url: string;
  description: string | null;
  /** Absent: DEFAULT_EVENT_TYPES. */
  eventTypes?: EventType[];
  /** `lead.updated` bodies carry the previous values too; absent: false. */
  includePrevious?: boolean;
  /** Full or thin bodies (docs/webhooks.md "Thin payloads"); absent: full. */
  payload?: PayloadForm;
  members: number[] | null;
  subteams: number[] | null;
  now: number;
  /** Who the audit log names. */
  actor: AuditActor;
}

export interface RegisteredEndpoint {
  endpoint: Endpoint;
  /** The signing secret: returned this once, stored sealed (LEADLINE_WEBHOOK_SECRET_KEY). */
  secret: string;
}

/**
 * Registers an endpoint for a team (docs/webhooks.md): the team exists, the URL may receive
 * webhooks, the filters name the team's own members and subteams, the team has room
 * (EndpointLimitReached, LEADLINE_WEBHOOK_MAX_ENDPOINTS). `POST /api/pub/v2/webhooks` and
 * `leadline webhooks add` both register through here.
 */
export async function registerEndpoint(
  store: { webhooks: WebhookStore; directory: DirectoryStore; audit: AuditStore },
  config: WebhookConfig,
  input: RegisterEndpointInput,
  lookup: HostLookup,
): Promise<RegisteredEndpoint> {
  if ((await store.directory.team(input.teamId)) === null)
    throw new AppError('not-found', `No team ${input.teamId}.`);
  await checkUrl(input.url, config, lookup);
  await checkFilters(store.directory, input.teamId, input.by.memberId, input.members, input.subteams);
  const secret = newSigningSecret();
  const endpoint = await store.webhooks.addEndpoint(
    {
      teamId: input.teamId,
      url: input.url,
      description: input.description,
      eventTypes: input.eventTypes ?? [...DEFAULT_EVENT_TYPES],
      members: input.members,
      subteams: input.subteams,
      secret: new SecretSeal(config.secretKey).seal(secret),
      createdBy: input.by,
      includePrevious: input.includePrevious ?? false,
      payload: input.payload ?? 'full',
      createdAt: input.now,
    },
    config.maxEndpoints,
  );
  await recordAudit(store, {
    at: input.now,
    teamId: endpoint.teamId,
    actor: input.actor,
    action: 'webhook.created',
    details: { endpointId: endpoint.id, eventTypes: endpoint.eventTypes },
  });
  return { endpoint, secret };
}
