import type { Json } from './build.js';
import { form, op, page, redirect, refusals, team } from './console-parts.js';

/** The console's webhooks views (docs/console.md, "Views"): endpoints, deliveries, replay. */

const endpoint = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
  description: 'The endpoint’s id (as `GET /api/pub/v2/webhooks` gives it).',
};
const limit = {
  name: 'limit',
  in: 'query',
  required: false,
  schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  description: 'How many of the newest deliveries to list.',
};

export function consoleWebhookOperations(): Json[] {
  return [
    op('consoleWebhooks', 'Console: the team’s webhook endpoints', {
      parameters: [team],
      responses: { '200': page('The endpoints, with how their newest deliveries went.'), ...refusals },
    }),
    op('consoleWebhook', 'Console: one endpoint and its newest deliveries, every attempt', {
      parameters: [endpoint, team, limit],
      responses: { '200': page('The endpoint and its deliveries.'), ...refusals },
    }),
    op('consoleReplayDelivery', 'Console: send a failed or delivered delivery again (same webhook-id)', {
      parameters: [
        endpoint,
        {
          name: 'delivery',
          in: 'path',
          required: true,
          schema: { type: 'string', pattern: '^[0-9]+$' },
          description: 'The delivery’s id, one of the endpoint’s newest 200.',
        },
        team,
      ],
      requestBody: form({}),
      responses: {
        '303': redirect('/console/webhooks/{id}?replayed={delivery}'),
        ...refusals,
        '409': page('The delivery is pending (already waiting for an attempt) or was dropped.'),
      },
    }),
  ];
}
