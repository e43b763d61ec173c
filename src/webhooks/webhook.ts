import type { ChangeSource, Lead } from '../leads/lead.js';
import { describeChange } from '../leads/lead-change.js';
import type { LeadValues } from '../leads/leads.port.js';
import { leadToV2 } from '../leads/v2-wire.js';
import type { V2Lead } from '../schemas/v2.js';
import type { LeadMergedEvent } from '../schemas/webhooks.js';
import { AppError } from '../shared/errors.js';
import { formatInstant } from '../shared/instant.js';

/**
 * Webhooks (docs/webhooks.md): the events a team's endpoints receive and the body each is sent with.
 * An event is written to the outbox in the transaction that stores its lead (storage/), so a
 * lead never exists without its event nor an event without its lead.
 */

/** `v1.usage` is about the team's keys, not a lead: src/retirement/send-v1-usage.ts writes it. */
export const EVENT_TYPES = [
  'lead.created',
  'lead.updated',
  'lead.merged',
  'lead.erased',
  'v1.usage',
  'webhook.endpoint.disabled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Every type the event log holds (docs/v2.md "Events"): the types an endpoint may list, and
 * `webhook.test`, sent to one endpoint on request and kept in the log as the team's.
 */
export const LOGGED_EVENT_TYPES = [...EVENT_TYPES, 'webhook.test'] as const;
export type LoggedEventType = (typeof LOGGED_EVENT_TYPES)[number];

/** Team-level events: about the team's endpoints or keys, not a lead; readable by team admins only. */
export const TEAM_EVENT_TYPES: readonly LoggedEventType[] = [
  'webhook.test',
  'v1.usage',
  'webhook.endpoint.disabled',
];

/**
 * What an endpoint registered without `eventTypes` receives: `lead.created` (as before issue 39,
 * docs/webhooks.md "lead.updated and lead.merged": a receiver is not sent a lead body shape it
 * never asked for) and, since issue 41, `webhook.endpoint.disabled` (docs/webhooks.md "When
 * leadline disables an endpoint"). Endpoints registered before keep their stored list.
 */
export const DEFAULT_EVENT_TYPES: EventType[] = ['lead.created', 'webhook.endpoint.disabled'];

/**
 * What an endpoint's bodies carry (docs/webhooks.md "Thin payloads"): `full`, the lead as the
 * API returns it; `thin`, ids, type and time only — the receiver reads the lead through the API.
 */
export const PAYLOAD_FORMS = ['full', 'thin'] as const;
export type PayloadForm = (typeof PAYLOAD_FORMS)[number];

/** A team's registered receiver. The signing secret never leaves the store through this shape. */
export interface Endpoint {
  /** A UUIDv7: no count of other teams' endpoints can be read from it. */
  id: string;
  teamId: number;
  url: string;
  description: string | null;
  eventTypes: EventType[];
  /** Only leads collected by these members (null: every member). */
  members: number[] | null;
  /** Only leads collected by a current member of these subteams (null: every subteam). */
  subteams: number[] | null;
  enabled: boolean;
  /** Why leadline disabled it (410 Gone, failing too long); null when enabled or disabled by a person. */
  disabledReason: string | null;
  /** Who created it; null: unknown (created before leadline recorded it). */
  createdBy: EndpointCreator | null;
  /** `lead.updated` bodies carry the changed fields' previous values (`previous`). */
  includePrevious: boolean;
  /** Full bodies, or thin ones (ids, type and time). */
  payload: PayloadForm;
  createdAt: number;
  updatedAt: number;
}

/**
 * Who created an endpoint (docs/webhooks.md "Who created an endpoint"): a member through the API, with the key it called with, or
 * the operator through the CLI. The endpoint does not depend on them: it keeps working when the
 * member leaves the team or the key is revoked, and says so.
 */
export interface EndpointCreator {
  via: 'api' | 'cli';
  memberId: number | null;
  keyId: number | null;
  /** The member is no longer one of the endpoint's team (moved away, or gone). */
  memberRemoved: boolean;
  /** The key has been revoked (or is gone). */
  keyRevoked: boolean;
}

/** An endpoint about to be stored; `secret` is the stored form of its signing secret. */
/** A team has as many endpoints as it may (LEADLINE_WEBHOOK_MAX_ENDPOINTS): nothing was stored. */
export class EndpointLimitReached extends AppError {
  constructor(readonly limit: number) {
    super(
      'webhook-endpoint-limit',
      `The team has ${limit} webhook endpoint${limit === 1 ? '' : 's'}, as many as it may (LEADLINE_WEBHOOK_MAX_ENDPOINTS); remove one first, or send several event types to one endpoint.`,
      { limit },
    );
  }
}

export interface NewEndpoint {
  teamId: number;
  url: string;
  description: string | null;
  eventTypes: EventType[];
  members: number[] | null;
  subteams: number[] | null;
  secret: string;
  /** Absent: stored as unknown (null). */
  createdBy?: Pick<EndpointCreator, 'via' | 'memberId' | 'keyId'>;
  /** Absent: false. */
  includePrevious?: boolean;
  /** Absent: `full`. */
  payload?: PayloadForm;
  createdAt: number;
}

/** What an update changes; absent members stay. Enabling clears a disabled reason. */
export interface EndpointChanges {
  url?: string;
  description?: string | null;
  eventTypes?: EventType[];
  members?: number[] | null;
  subteams?: number[] | null;
  enabled?: boolean;
  includePrevious?: boolean;
  payload?: PayloadForm;
}

/** An endpoint's secrets as stored; `previous` signs too until `previousUntil` (rotation). */
export interface SigningSecrets {
  current: string;
  previous: string | null;
  previousUntil: number | null;
}

/** Who asks: a team's admin sees that team's endpoints only; the operator (CLI) every team's. */
export type EndpointOwner = { teamId: number } | 'operator';

/**
 * An event of the log with the lead it is about, as stored now (null: the lead left the team, or
 * a team-level event).
 */
export interface WebhookEvent {
  /** Log order (on PostgreSQL within a transaction's events: the log orders by (txid, seq)). */
  seq: number;
  /** The `webhook-id`: the same on every attempt, so a receiver can de-duplicate. */
  id: string;
  type: LoggedEventType;
  teamId: number;
  createdAt: number;
  lead: Lead | null;
  /** What changed (`lead.updated`, `lead.merged`); null for `lead.created`. */
  change: EventChange | null;
  /** A team-level event's envelope as delivered (JSON), rendered when it was written; else null. */
  body: string | null;
}

/**
 * The change an event announces, as the outbox keeps it (webhook_events.data, JSON): where it
 * came from, and the lead's values before and after (`lead.updated`) or its survivor (`lead.merged`).
 */
export interface EventChange {
  source: ChangeSource;
  before?: LeadValues;
  after?: LeadValues;
  mergedInto?: string;
  /**
   * The lead's version the change made (the updated lead's, the merged lead's); absent on events
   * written before it was recorded. Read by the console's history (docs/console.md, "Lead page").
   */
  version?: number;
}

/** The `data` of a `lead.updated` event: the lead as it is, which fields changed, and from where. */
export interface LeadUpdatedData {
  leadId: string;
  changeSource: ChangeSource;
  /** Names as in the v2 lead: `systemFields.email`, `v1Fields.views`, `leadSource`. */
  changedFields: string[];
  /** Only for an endpoint with `includePrevious`: the changed fields' values before, shaped like the lead. */
  previous?: Record<string, unknown>;
  lead: V2Lead;
}

/**
 * The `data` of a `lead.merged` event: the merged lead and the lead it now lives on in — the
 * wire schema's own type (src/schemas/webhooks.ts), so a change source the OpenAPI document
 * does not list fails to compile.
 */
export type LeadMergedData = LeadMergedEvent['data'];

/**
 * The `data` of a `lead.erased` event (docs/privacy.md "Erasure"): the erased lead's id and
 * nothing else — no personal value, not even the e-mail that was erased.
 */
export interface LeadErasedData {
  leadId: string;
}

/** The Standard Webhooks payload: `type`, `timestamp` (of the event) and `data`. */
export interface WebhookEnvelope<T = unknown> {
  type: string;
  timestamp: string;
  data: T;
}

/** An event as the log answers it (docs/v2.md "Events"): its id (the webhook-id) and its body. */
export interface LoggedEvent extends WebhookEnvelope {
  id: string;
}

/**
 * An event of the log as GET /api/pub/v2/events gives it: the body an endpoint with payload
 * "full" (and without `includePrevious`) receives — eventEnvelope for a lead's events, the body
 * rendered when it was written for a team-level one — and the event's id. Null: a lead event
 * whose lead the team no longer holds.
 */
export function loggedEvent(event: WebhookEvent): LoggedEvent | null {
  if (event.body !== null) return { id: event.id, ...(JSON.parse(event.body) as WebhookEnvelope) };
  if (event.lead === null) return null;
  return { id: event.id, ...eventEnvelope(event, event.lead, false) };
}

/**
 * The body of a `lead.created` event: the lead exactly as `GET /api/pub/v2/leads/{leadId}`
 * returns it (leadToV2, so the consent rule holds: no coordinates without consent).
 */
export function leadCreatedEnvelope(event: WebhookEvent, lead: Lead): WebhookEnvelope<V2Lead> {
  return { type: event.type, timestamp: formatInstant(event.createdAt), data: leadToV2(lead) };
}

/**
 * The body of any event for `lead` (its values when the event is dispatched, like
 * `lead.created`'s). `lead.updated` names the fields that changed between the values before and
 * after the change, and — `withPrevious` — gives their values before.
 */
export function eventEnvelope(
  event: WebhookEvent,
  lead: Lead,
  withPrevious: boolean,
): WebhookEnvelope<V2Lead | LeadUpdatedData | LeadMergedData | LeadErasedData> {
  const timestamp = formatInstant(event.createdAt);
  const change = event.change;
  if (event.type === 'lead.erased') return { type: event.type, timestamp, data: { leadId: lead.uuid } };
  if (event.type === 'lead.created' || change === null) return leadCreatedEnvelope(event, lead);
  if (event.type === 'lead.merged') {
    return {
      type: event.type,
      timestamp,
      data: { leadId: lead.uuid, mergedInto: change.mergedInto ?? '', changeSource: change.source },
    };
  }
  const described =
    change.before === undefined || change.after === undefined
      ? { changedFields: [], previous: {} }
      : describeChange(lead, change.before, change.after);
  const data: LeadUpdatedData = {
    leadId: lead.uuid,
    changeSource: change.source,
    changedFields: described.changedFields,
    ...(withPrevious ? { previous: described.previous } : {}),
    lead: leadToV2(lead),
  };
  return { type: event.type, timestamp, data };
}

/**
 * The thin body of an event (docs/webhooks.md "Thin payloads"): type, time and ids only — no
 * value of the lead, so no personal data reaches the receiver's queues and logs. `lead.merged`
 * names both leads; every other lead event the lead alone.
 */
export function thinEnvelope(event: WebhookEvent, leadId: string): WebhookEnvelope<ThinLeadData> {
  const timestamp = formatInstant(event.createdAt);
  if (event.type === 'lead.merged')
    return { type: event.type, timestamp, data: { leadId, mergedInto: event.change?.mergedInto ?? '' } };
  return { type: event.type, timestamp, data: { leadId } };
}

/** The `data` of a thin lead event: the lead's id (and, merged, its survivor's). */
export interface ThinLeadData {
  leadId: string;
  mergedInto?: string;
}

/** Why leadline disabled an endpoint, as a metric label: 410 Gone, or failing too long. */
export type DisableCause = 'gone' | 'failing';

/** An endpoint leadline itself disabled, as `webhook.endpoint.disabled` announces it. */
export interface DisabledEndpoint {
  endpointId: string;
  teamId: number;
  url: string;
  reason: string;
  cause: DisableCause;
  at: number;
}

/**
 * The body of a `webhook.endpoint.disabled` event (docs/webhooks.md "When leadline disables an
 * endpoint"): which endpoint, where it pointed, why and when — no lead, no personal value. A
 * thin endpoint gets the endpoint id alone (it reads the rest with GET /webhooks/{endpointId}).
 */
export function endpointDisabledPayload(d: DisabledEndpoint, form: PayloadForm): string {
  const timestamp = formatInstant(d.at);
  const data =
    form === 'thin'
      ? { endpointId: d.endpointId }
      : { endpointId: d.endpointId, url: d.url, reason: d.reason, disabledAt: timestamp };
  return JSON.stringify({ type: 'webhook.endpoint.disabled', timestamp, data });
}
