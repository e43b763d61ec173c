import Type, { type Static } from 'typebox';
import { LeadSourceSchema, V2Lead } from './v2.js';

/** The webhook wire contract (docs/webhooks.md): endpoint bodies and the event payload. */

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description:
    'Where events are POSTed: https, on a public address (http and private addresses only when the operator allows them).',
});
const Description = Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
  description: 'A note for people; not sent anywhere.',
});
/** The event types an endpoint may take (docs/webhooks.md "Events"). */
const EventType = Type.Enum([
  'lead.created',
  'lead.updated',
  'lead.merged',
  'lead.erased',
  'v1.usage',
  'webhook.endpoint.disabled',
]);
const EventTypes = Type.Array(EventType, {
  minItems: 1,
  uniqueItems: true,
  description:
    'The events this endpoint receives. Default (absent at registration): `["lead.created", "webhook.endpoint.disabled"]` — list `lead.updated` and `lead.merged` to follow changes, `v1.usage` for a daily notice while the team’s keys still call v1; `webhook.endpoint.disabled` tells of another endpoint of the team that leadline disabled.',
});
const Payload = Type.Enum(['full', 'thin'], {
  description:
    '`full`: bodies carry the lead as GET /api/pub/v2/leads/{leadId} returns it. `thin`: type, time and ids only — no personal value; the receiver reads the lead through the API (/docs/webhooks, "Thin payloads"). Default (absent at registration): `full`.',
});
const IncludePrevious = Type.Boolean({
  description:
    "`lead.updated` bodies carry `previous`: the changed fields' values before the change. Default (absent at registration): false.",
});
const Members = Type.Union([Type.Array(Id, { minItems: 1, maxItems: 100, uniqueItems: true }), Type.Null()], {
  description: 'Only leads collected by these members of the team; null: every member.',
});
const Subteams = Type.Union(
  [Type.Array(Id, { minItems: 1, maxItems: 100, uniqueItems: true }), Type.Null()],
  {
    description:
      "Only leads collected by a current member of these subteams; null: every subteam. With memberIds: either's leads.",
  },
);

export const WebhookCreateBody = Type.Object(
  {
    url: Url,
    description: Type.Optional(Description),
    eventTypes: Type.Optional(EventTypes),
    includePrevious: Type.Optional(IncludePrevious),
    payload: Type.Optional(Payload),
    memberIds: Type.Optional(Members),
    subteamIds: Type.Optional(Subteams),
  },
  { additionalProperties: false },
);
export type WebhookCreateBody = Static<typeof WebhookCreateBody>;

export const WebhookUpdateBody = Type.Object(
  {
    url: Type.Optional(Url),
    description: Type.Optional(Description),
    eventTypes: Type.Optional(EventTypes),
    includePrevious: Type.Optional(IncludePrevious),
    payload: Type.Optional(Payload),
    memberIds: Type.Optional(Members),
    subteamIds: Type.Optional(Subteams),
    enabled: Type.Optional(
      Type.Boolean({
        description: 'false stops deliveries; true starts them again (and clears disabledReason).',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1, description: 'The members to change; the others stay.' },
);
export type WebhookUpdateBody = Static<typeof WebhookUpdateBody>;

const Nullable = Type.Union([Type.String(), Type.Null()]);
const IdsOrNull = Type.Union([Type.Array(Type.Integer()), Type.Null()]);

const Creator = Type.Object(
  {
    via: Type.Enum(['api', 'cli'], {
      description: '`api`: a team admin with an API key; `cli`: the operator (`leadline webhooks add`).',
    }),
    memberId: Type.Union([Type.Integer(), Type.Null()], { description: 'The member who created it (api).' }),
    keyId: Type.Union([Type.Integer(), Type.Null()], { description: 'The key it was created with (api).' }),
    memberRemoved: Type.Boolean({ description: 'The member is no longer one of the team.' }),
    keyRevoked: Type.Boolean({ description: 'The key has been revoked since.' }),
  },
  { additionalProperties: false },
);

export const WebhookEndpoint = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    url: Type.String(),
    description: Nullable,
    eventTypes: Type.Array(EventType),
    includePrevious: Type.Boolean({
      description: '`lead.updated` bodies to this endpoint carry `previous` (the values before the change).',
    }),
    payload: Type.Enum(['full', 'thin'], {
      description: 'What its bodies carry: `full` (the lead) or `thin` (type, time and ids only).',
    }),
    memberIds: IdsOrNull,
    subteamIds: IdsOrNull,
    enabled: Type.Boolean(),
    disabledReason: Type.Union([Type.String(), Type.Null()], {
      description: 'Why leadline disabled the endpoint (410 Gone, failing too long); null otherwise.',
    }),
    createdBy: Type.Union([Creator, Type.Null()], {
      description:
        'Who created the endpoint; null: unknown (created before leadline recorded it). The endpoint keeps working when its creator leaves the team or its key is revoked.',
    }),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    secret: Type.Optional(
      Type.String({
        description:
          'The signing secret (`whsec_…`): in the answers to creation and rotation only, never again.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

/** The body of every `lead.created` delivery (Standard Webhooks envelope). */
export const LeadCreatedEvent = Type.Object(
  {
    type: Type.Literal('lead.created'),
    timestamp: Type.String({ description: 'When the lead was stored (ISO-8601 UTC).' }),
    data: V2Lead,
  },
  { additionalProperties: false, description: 'The lead as GET /api/pub/v2/leads/{leadId} returns it.' },
);

/** The body of a `webhook.test` delivery (POST /api/pub/v2/webhooks/{endpointId}/test queues one). */
export const WebhookTestEvent = Type.Object(
  {
    type: Type.Literal('webhook.test'),
    timestamp: Type.String({ description: 'When the test was asked for (ISO-8601 UTC).' }),
    data: Type.Object(
      { endpointId: Type.String({ description: 'The endpoint the test was sent to.' }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'A signed event that only checks the endpoint receives.' },
);

/** Where a change came from (docs/webhooks.md "lead.updated and lead.merged"). */
const ChangeSource = Type.Enum(['api', 'import', 'console', 'cli'], {
  description:
    'Where the change came from: `api` (v2), `import` (`leadline import`), `console`, `cli` (`leadline leads …`).',
});
const LeadId = Type.String({ format: 'uuid' });

/** The body of a `lead.updated` delivery: which fields changed, from where, and the lead as it is now. */
export const LeadUpdatedEvent = Type.Object(
  {
    type: Type.Literal('lead.updated'),
    timestamp: Type.String({ description: 'When the lead was changed (ISO-8601 UTC).' }),
    data: Type.Object(
      {
        leadId: LeadId,
        changeSource: ChangeSource,
        changedFields: Type.Array(Type.String(), {
          description:
            'The v2 members whose value changed: `leadSource`, `systemFields.<member>`, `v1Fields.<member>`.',
        }),
        previous: Type.Optional(
          Type.Object(
            {
              leadSource: Type.Optional(LeadSourceSchema),
              systemFields: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
              v1Fields: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
            },
            {
              additionalProperties: false,
              description:
                'Only to an endpoint with `includePrevious`: the changed members’ values before the change, shaped like the lead (`null` where there was none).',
            },
          ),
        ),
        lead: V2Lead,
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    description:
      'A lead’s values changed (an update, a merge that filled in the survivor, an import with other values). `lead` is the lead as GET /api/pub/v2/leads/{leadId} returns it when the event is delivered.',
  },
);
export type LeadUpdatedEvent = Static<typeof LeadUpdatedEvent>;

/** The body of a `lead.merged` delivery: the merged lead and its survivor. */
export const LeadMergedEvent = Type.Object(
  {
    type: Type.Literal('lead.merged'),
    timestamp: Type.String({ description: 'When the lead was merged (ISO-8601 UTC).' }),
    data: Type.Object(
      {
        leadId: Type.String({
          format: 'uuid',
          description: 'The merged lead: it has no current view any more.',
        }),
        mergedInto: Type.String({ format: 'uuid', description: 'The survivor, which keeps its id.' }),
        changeSource: ChangeSource,
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    description: 'A lead was merged into another: a mirror deletes `leadId`.',
  },
);
export type LeadMergedEvent = Static<typeof LeadMergedEvent>;

/** The body of a `webhook.endpoint.disabled` delivery (docs/webhooks.md "When leadline disables an endpoint"). */
export const WebhookEndpointDisabledEvent = Type.Object(
  {
    type: Type.Literal('webhook.endpoint.disabled'),
    timestamp: Type.String({ description: 'When leadline disabled the endpoint (ISO-8601 UTC).' }),
    data: Type.Object(
      {
        endpointId: Type.String({ format: 'uuid', description: 'The endpoint leadline disabled.' }),
        url: Type.Optional(Type.String({ description: 'Where it pointed (not in thin bodies).' })),
        reason: Type.Optional(
          Type.String({
            description:
              'Why, in words: `the endpoint answered 410 Gone` or `every attempt failed for <n> days` (not in thin bodies).',
          }),
        ),
        disabledAt: Type.Optional(Type.String({ description: 'When, as `timestamp` (not in thin bodies).' })),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    description:
      'leadline disabled another endpoint of the team; nothing is sent to it until a team admin enables it again (PATCH `{"enabled": true}`) and recovers what failed (POST …/recover).',
  },
);

/** The body of a thin lead event (an endpoint with `payload: "thin"`). */
export const ThinLeadEvent = Type.Object(
  {
    type: Type.Enum(['lead.created', 'lead.updated', 'lead.merged', 'lead.erased']),
    timestamp: Type.String({ description: 'When the event happened (ISO-8601 UTC).' }),
    data: Type.Object(
      {
        leadId: LeadId,
        mergedInto: Type.Optional(
          Type.String({ format: 'uuid', description: '`lead.merged` only: the survivor.' }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    description:
      'What an endpoint with `payload: "thin"` receives for a lead event: no value of the lead. Read the lead with GET /api/pub/v2/leads/{leadId} (an ordinary read, counted in the usage ledger).',
  },
);

/** `POST /api/pub/v2/webhooks/{endpointId}/recover`: since when failed deliveries are sent again. */
export const WebhookRecoverBody = Type.Object(
  {
    since: Type.String({
      format: 'date-time',
      description:
        'An RFC 3339 instant, not in the future: every failed delivery of events since then is sent again.',
    }),
  },
  { additionalProperties: false },
);
export type WebhookRecoverBody = Static<typeof WebhookRecoverBody>;

const Attempt = Type.Object(
  {
    at: Type.String({ description: 'When the attempt was made (ISO-8601 UTC).' }),
    status: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The HTTP status answered; null: no answer (refused, timed out, connection error).',
    }),
    latencyMs: Type.Integer({ description: 'From sending to the answer (or the failure).' }),
    answer: Type.String({
      description: 'The start of the answer as stored (up to 1 KiB), or why there was none.',
    }),
  },
  { additionalProperties: false },
);

export const WebhookDelivery = Type.Object(
  {
    id: Type.Integer({ description: 'The delivery (one event to this endpoint).' }),
    eventId: Type.String({ description: 'The event id: the `webhook-id` it is sent with.' }),
    type: Type.String({ description: 'The event type.' }),
    state: Type.Enum(['pending', 'delivered', 'failed', 'dropped'], {
      description:
        '`pending`: waiting for an attempt (or a retry); `delivered`; `failed`: given up (recover sends it again); `dropped`: past the retention, its body gone.',
    }),
    createdAt: Type.String({ description: 'When its event happened (ISO-8601 UTC).' }),
    nextAttemptAt: Type.Union([Type.String(), Type.Null()], {
      description:
        'Pending: when it is attempted next (while an attempt is in flight, when that attempt’s lease ends); null otherwise.',
    }),
    finishedAt: Type.Union([Type.String(), Type.Null()], {
      description: 'When it was delivered, failed or dropped; null while pending.',
    }),
    attempts: Type.Array(Attempt, { description: 'Its attempts, oldest first.' }),
  },
  { additionalProperties: false },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

/** The body of a `lead.erased` delivery (docs/privacy.md "Erasure"): the erased lead's id, nothing else. */
export const LeadErasedEvent = Type.Object(
  {
    type: Type.Literal('lead.erased'),
    timestamp: Type.String({ description: 'When the lead was erased (ISO-8601 UTC).' }),
    data: Type.Object(
      { leadId: Type.String({ format: 'uuid', description: 'The erased lead: delete every copy of it.' }) },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    description: 'A lead was erased at its person’s request. No personal value, not even the erased e-mail.',
  },
);
export type LeadErasedEvent = Static<typeof LeadErasedEvent>;

/** Every type the event log holds (src/webhooks/webhook.ts LOGGED_EVENT_TYPES). */
export const LoggedEventType = Type.Enum([
  'lead.created',
  'lead.updated',
  'lead.merged',
  'lead.erased',
  'v1.usage',
  'webhook.endpoint.disabled',
  'webhook.test',
]);

/** One event of GET /api/pub/v2/events (docs/v2.md "Events"). */
export const LoggedEvent = Type.Object(
  {
    id: Type.String({
      format: 'uuid',
      description: 'The event’s id: the `webhook-id` every delivery of it carries.',
    }),
    type: LoggedEventType,
    timestamp: Type.String({ description: 'When the event happened (ISO-8601 UTC).' }),
    data: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'The `data` of the webhook body of this type, as an endpoint with payload "full" and without `includePrevious` receives it (the OpenAPI `webhooks` section, the event catalog at /docs/events).',
      },
    ),
  },
  { additionalProperties: false },
);
export type LoggedEvent = Static<typeof LoggedEvent>;
