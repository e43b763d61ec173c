import { WebhookCreateBody, WebhookRecoverBody, WebhookUpdateBody } from '../../schemas/webhooks.js';
import {
  ADMIN_ERRORS,
  BODY_ERRORS,
  COMMON_HEADERS,
  type Json,
  json,
  keyedProblems,
  OK_HEADERS,
  QUOTA_HEADERS,
  ref,
} from './build.js';

/**
 * Webhooks in the OpenAPI document: the endpoints a team admin registers (docs/webhooks.md).
 * What leadline POSTs to them is the document's `webhooks` section: webhook-events.ts.
 */

const ID = { name: 'endpointId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const one = { type: 'object', required: ['data'], properties: { data: ref('WebhookEndpoint') } };

const op = (operationId: string, summary: string, rest: Json): Json => ({
  operationId,
  tags: ['webhooks'],
  summary,
  description: 'Team admins only; an endpoint of another team is `404`.',
  ...rest,
});

export function webhookOperations(): Json[] {
  return [
    op('listWebhooks', 'The team’s webhook endpoints', {
      responses: {
        '200': {
          description: 'The endpoints (never their secrets).',
          headers: OK_HEADERS,
          content: json({
            type: 'object',
            required: ['data'],
            properties: {
              data: {
                type: 'object',
                required: ['endpoints'],
                properties: { endpoints: { type: 'array', items: ref('WebhookEndpoint') } },
              },
            },
          }),
        },
        ...keyedProblems(ADMIN_ERRORS),
      },
    }),
    op('createWebhook', 'Register an endpoint; the answer shows its secret, once', {
      body: WebhookCreateBody,
      requestBody: {
        required: true,
        content: json(ref('WebhookCreateBody'), {
          url: 'https://crm.example.com/hooks/leadline',
          description: 'CRM sync',
          eventTypes: ['lead.created', 'lead.updated', 'lead.merged'],
          includePrevious: true,
        }),
      },
      responses: {
        '201': {
          description: 'The endpoint, with `secret`: keep it, it is not shown again.',
          headers: {
            ...OK_HEADERS,
            Location: { description: 'The endpoint’s URL.', schema: { type: 'string' } },
          },
          content: json(one),
        },
        ...keyedProblems([...BODY_ERRORS, 'webhook-endpoint-limit', ...ADMIN_ERRORS]),
      },
    }),
    op('getWebhook', 'One endpoint', {
      parameters: [ID],
      responses: {
        '200': { description: 'The endpoint.', headers: OK_HEADERS, content: json(one) },
        ...keyedProblems(['not-found', ...ADMIN_ERRORS]),
      },
    }),
    op('updateWebhook', 'Change an endpoint’s URL, events, previous values, filters, or enable/disable it', {
      parameters: [ID],
      body: WebhookUpdateBody,
      requestBody: {
        required: true,
        content: json(ref('WebhookUpdateBody'), {
          eventTypes: ['lead.created', 'lead.updated', 'lead.merged'],
          includePrevious: false,
        }),
      },
      responses: {
        '200': { description: 'The endpoint as it is now.', headers: OK_HEADERS, content: json(one) },
        ...keyedProblems(['not-found', ...BODY_ERRORS, ...ADMIN_ERRORS]),
      },
    }),
    op('deleteWebhook', 'Remove an endpoint', {
      parameters: [ID],
      responses: {
        '204': {
          description: 'Removed; nothing more is delivered to it.',
          headers: { ...COMMON_HEADERS, ...QUOTA_HEADERS },
        },
        ...keyedProblems(['not-found', ...ADMIN_ERRORS]),
      },
    }),
    op('rotateWebhookSecret', 'A new secret; the old one keeps signing during the grace period', {
      parameters: [ID],
      responses: {
        '200': {
          description: 'The endpoint with its new `secret`, shown once.',
          headers: OK_HEADERS,
          content: json(one),
        },
        ...keyedProblems(['not-found', ...ADMIN_ERRORS]),
      },
    }),
    op('testWebhook', 'Queue a `webhook.test` event to the endpoint', {
      parameters: [ID],
      responses: {
        '202': {
          description:
            'Queued; it is delivered, signed, like any event: `{"type": "webhook.test", "timestamp", "data": {"endpointId"}}`.',
          headers: OK_HEADERS,
          content: json({
            type: 'object',
            required: ['data'],
            properties: {
              data: {
                type: 'object',
                required: ['webhookId'],
                properties: {
                  webhookId: { type: 'string', description: 'The `webhook-id` it is sent with.' },
                },
              },
            },
          }),
        },
        ...keyedProblems(['not-found', ...ADMIN_ERRORS]),
      },
    }),
    op('recoverWebhook', 'Send again every failed delivery since a time', {
      description:
        'Team admins only; an endpoint of another team is `404`. What `leadline webhooks replay --endpoint <id> --since <t>` does: every delivery of this endpoint that ended `failed`, of an event since `since`, becomes `pending` again, due at once, with the same `webhook-id` and body. A delivery already pending again is not counted twice, so two recovers side by side send each failed delivery once. A disabled endpoint is not sent to until it is enabled again (PATCH `{"enabled": true}`).',
      parameters: [ID],
      body: WebhookRecoverBody,
      requestBody: {
        required: true,
        content: json(ref('WebhookRecoverBody'), { since: '2026-11-28T00:00:00Z' }),
      },
      responses: {
        '202': {
          description: 'Queued again; `recovered` says how many deliveries.',
          headers: OK_HEADERS,
          content: json(
            {
              type: 'object',
              required: ['data'],
              properties: {
                data: {
                  type: 'object',
                  required: ['recovered'],
                  properties: {
                    recovered: { type: 'integer', description: 'Failed deliveries made pending again.' },
                  },
                },
              },
            },
            { data: { recovered: 3 } },
          ),
        },
        ...keyedProblems(['not-found', ...BODY_ERRORS, ...ADMIN_ERRORS]),
      },
    }),
    op('listWebhookDeliveries', 'The endpoint’s deliveries and their attempts, newest first', {
      parameters: [
        ID,
        {
          name: 'state',
          in: 'query',
          description: 'Only deliveries in this state.',
          schema: { type: 'string', enum: ['pending', 'delivered', 'failed', 'dropped'] },
        },
        {
          name: 'cursor',
          in: 'query',
          description: 'A `nextCursor` from an earlier page of the same endpoint and state filter.',
          schema: { type: 'string' },
        },
        {
          name: 'limit',
          in: 'query',
          description: 'Deliveries per page, 1 to 1000 (default 100).',
          schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
        },
      ],
      responses: {
        '200': {
          description:
            'Newest first. `nextCursor` continues with older deliveries; null on the last page. Delivered deliveries are kept for the retention (LEADLINE_WEBHOOK_RETENTION_DAYS).',
          headers: OK_HEADERS,
          content: json({
            type: 'object',
            required: ['data'],
            properties: {
              data: {
                type: 'object',
                required: ['deliveries', 'nextCursor'],
                properties: {
                  deliveries: { type: 'array', items: ref('WebhookDelivery') },
                  nextCursor: { type: ['string', 'null'] },
                },
              },
            },
          }),
        },
        ...keyedProblems(['not-found', 'invalid-parameters', ...ADMIN_ERRORS]),
      },
    }),
  ];
}
