import { type Json, json, ref } from './build.js';
import { v1UsageEvent } from './v1-usage-event.js';
import { V2_LEAD_EXAMPLE } from './v2.js';

/**
 * The OpenAPI document's `webhooks` section: what leadline POSTs to a registered endpoint,
 * signed per Standard Webhooks (docs/webhooks.md). The endpoints API is webhooks.ts.
 */

const SIGNATURE_HEADERS = {
  'webhook-id': {
    description:
      'The event id: the same on every retry of it, so a receiver can drop repeats — and the `id` of the event in GET /api/pub/v2/events.',
    required: true,
    schema: { type: 'string' },
  },
  'webhook-timestamp': {
    description: 'Unix seconds of this attempt.',
    required: true,
    schema: { type: 'string' },
  },
  'webhook-signature': {
    description:
      'Space-separated `v1,<base64 HMAC-SHA256>` signatures of `id.timestamp.body`, one per valid secret (two during a rotation).',
    required: true,
    schema: { type: 'string' },
  },
};

/** The document's `webhooks` section: what a registered endpoint receives. */
export function webhookEvents(): Record<string, Json> {
  return {
    'lead.created': {
      post: {
        operationId: 'leadCreated',
        tags: ['webhooks'],
        summary: 'A lead entered the store (v2 creation or import)',
        description:
          'POSTed to every enabled endpoint of the lead’s team whose filters match. Any 2xx within 10 s is success; anything else is retried on the Standard Webhooks schedule; 410 disables the endpoint.',
        parameters: Object.entries(SIGNATURE_HEADERS).map(([name, h]) => ({ name, in: 'header', ...h })),
        requestBody: {
          required: true,
          content: json(ref('LeadCreatedEvent'), {
            type: 'lead.created',
            timestamp: '2024-07-01T12:11:02.417Z',
            data: V2_LEAD_EXAMPLE,
          }),
        },
        responses: { '200': { description: 'Received (any 2xx).' } },
      },
    },
    'lead.updated': {
      post: {
        operationId: 'leadUpdated',
        tags: ['webhooks'],
        summary: 'A lead’s values changed (update, merge into it, import with other values)',
        description:
          'POSTed to every enabled endpoint of the lead’s team that lists `lead.updated` in its `eventTypes` and whose filters match; `previous` only to an endpoint with `includePrevious: true`. Delivered, retried and signed like `lead.created`.',
        parameters: Object.entries(SIGNATURE_HEADERS).map(([name, h]) => ({ name, in: 'header', ...h })),
        requestBody: {
          required: true,
          content: json(ref('LeadUpdatedEvent'), {
            type: 'lead.updated',
            timestamp: '2024-07-02T09:30:00.000Z',
            data: {
              leadId: V2_LEAD_EXAMPLE.leadId,
              changeSource: 'api',
              changedFields: ['systemFields.email', 'systemFields.jobTitle'],
              previous: { systemFields: { email: 'tobi@old.example.com', jobTitle: null } },
              lead: V2_LEAD_EXAMPLE,
            },
          }),
        },
        responses: { '200': { description: 'Received (any 2xx).' } },
      },
    },
    'lead.merged': {
      post: {
        operationId: 'leadMerged',
        tags: ['webhooks'],
        summary: 'A lead was merged into another',
        description:
          'POSTed to every enabled endpoint of the team that lists `lead.merged` in its `eventTypes` and whose filters match the merged lead. The merged lead has no current view any more: delete it from a mirror. When the survivor took some of its values, a `lead.updated` for the survivor follows.',
        parameters: Object.entries(SIGNATURE_HEADERS).map(([name, h]) => ({ name, in: 'header', ...h })),
        requestBody: {
          required: true,
          content: json(ref('LeadMergedEvent'), {
            type: 'lead.merged',
            timestamp: '2024-07-02T09:31:00.000Z',
            data: {
              leadId: '01906a3c-5a10-7b20-9c3d-4e5f60718293',
              mergedInto: V2_LEAD_EXAMPLE.leadId,
              changeSource: 'api',
            },
          }),
        },
        responses: { '200': { description: 'Received (any 2xx).' } },
      },
    },
    'lead.erased': {
      post: {
        operationId: 'leadErased',
        tags: ['webhooks'],
        summary: 'A lead was erased at its person’s request: delete every copy of it',
        description:
          'Only to endpoints that list `lead.erased` in `eventTypes`. It carries the lead’s id and nothing else — no personal value ([privacy guide](/docs/privacy)). Any 2xx within 10 s is success.',
        parameters: Object.entries(SIGNATURE_HEADERS).map(([name, h]) => ({ name, in: 'header', ...h })),
        requestBody: {
          required: true,
          content: json(ref('LeadErasedEvent'), {
            type: 'lead.erased',
            timestamp: '2026-11-29T07:00:00.000Z',
            data: { leadId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' },
          }),
        },
        responses: { '200': { description: 'Received (any 2xx).' } },
      },
    },
    'webhook.test': {
      post: {
        operationId: 'webhookTest',
        tags: ['webhooks'],
        summary: 'A test event, asked for with POST /api/pub/v2/webhooks/{endpointId}/test',
        description:
          'Signed and retried like any event; it names the endpoint and carries no lead. Any 2xx within 10 s is success.',
        parameters: Object.entries(SIGNATURE_HEADERS).map(([name, h]) => ({ name, in: 'header', ...h })),
        requestBody: {
          required: true,
          content: json(ref('WebhookTestEvent'), {
            type: 'webhook.test',
            timestamp: '2024-07-01T12:11:02.417Z',
            data: { endpointId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' },
          }),
        },
        responses: { '200': { description: 'Received (any 2xx).' } },
      },
    },
    'v1.usage': v1UsageEvent(SIGNATURE_HEADERS),
    'webhook.endpoint.disabled': {
      post: {
        operationId: 'webhookEndpointDisabled',
        tags: ['webhooks'],
        summary: 'leadline disabled another endpoint of the team (410 Gone, or failing too long)',
        description:
          'POSTed to every other enabled endpoint of the team that lists `webhook.endpoint.disabled` in its `eventTypes` — part of the default for endpoints registered without `eventTypes` since this event exists; endpoints registered before keep their list. Sent once per disabling, when leadline itself disables the endpoint; not when a team admin disables it. It names the endpoint, where it pointed, why and when — no lead, no personal value; a thin endpoint gets `endpointId` alone. Signed and retried like any event.',
        parameters: Object.entries(SIGNATURE_HEADERS).map(([name, h]) => ({ name, in: 'header', ...h })),
        requestBody: {
          required: true,
          content: json(ref('WebhookEndpointDisabledEvent'), {
            type: 'webhook.endpoint.disabled',
            timestamp: '2026-11-29T08:15:02.000Z',
            data: {
              endpointId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
              url: 'https://crm.example.com/hooks/leadline',
              reason: 'the endpoint answered 410 Gone',
              disabledAt: '2026-11-29T08:15:02.000Z',
            },
          }),
        },
        responses: { '200': { description: 'Received (any 2xx).' } },
      },
    },
    'lead.thin': {
      post: {
        operationId: 'leadThin',
        tags: ['webhooks'],
        summary: 'Any lead event, to an endpoint with `payload: "thin"`',
        description:
          'An endpoint registered with `payload: "thin"` receives `lead.created`, `lead.updated`, `lead.merged` and `lead.erased` with type, time and ids only — no personal value in the receiver’s queues and logs. It reads the lead with GET /api/pub/v2/leads/{leadId}, an ordinary authenticated read counted in the usage ledger ([webhooks guide](/docs/webhooks)). Signed and retried like any event; the `webhook-id` is the event’s, as for a full body.',
        parameters: Object.entries(SIGNATURE_HEADERS).map(([name, h]) => ({ name, in: 'header', ...h })),
        requestBody: {
          required: true,
          content: json(ref('ThinLeadEvent'), {
            type: 'lead.merged',
            timestamp: '2024-07-02T09:31:00.000Z',
            data: {
              leadId: '01906a3c-5a10-7b20-9c3d-4e5f60718293',
              mergedInto: V2_LEAD_EXAMPLE.leadId,
            },
          }),
        },
        responses: { '200': { description: 'Received (any 2xx).' } },
      },
    },
  };
}
