import { WebhookCreateBody, WebhookUpdateBody } from '../../schemas/webhooks.js';
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
  ];
}
