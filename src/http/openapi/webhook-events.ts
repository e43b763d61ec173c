import { type Json, json, ref } from './build.js';
import { V2_LEAD_EXAMPLE } from './v2.js';

/**
 * The OpenAPI document's `webhooks` section: what leadline POSTs to a registered endpoint,
 * signed per Standard Webhooks (docs/webhooks.md). The endpoints API is webhooks.ts.
 */

const SIGNATURE_HEADERS = {
  'webhook-id': {
    description: 'The event id: the same on every retry of it, so a receiver can drop repeats.',
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
          content: json(
            {
              type: 'object',
              required: ['type', 'timestamp', 'data'],
              properties: {
                type: { const: 'lead.erased' },
                timestamp: { type: 'string', format: 'date-time' },
                data: {
                  type: 'object',
                  required: ['leadId'],
                  additionalProperties: false,
                  properties: { leadId: { type: 'string', format: 'uuid' } },
                },
              },
            },
            {
              type: 'lead.erased',
              timestamp: '2026-11-29T07:00:00.000Z',
              data: { leadId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' },
            },
          ),
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
  };
}
