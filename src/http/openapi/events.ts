import { LOGGED_EVENT_TYPES } from '../../webhooks/webhook.js';
import { type Json, json, KEYED_ERRORS, keyedProblems, OK_HEADERS, ref } from './build.js';
import { V2_LEAD_EXAMPLE } from './v2.js';

/** The event log in the OpenAPI document (docs/v2.md "Events"). */

const TYPES = LOGGED_EVENT_TYPES;

export function eventOperations(): Json[] {
  return [
    {
      operationId: 'listEvents',
      tags: ['v2'],
      summary: 'The event log: every event the key may see, in the order it happened',
      description:
        'The events webhooks deliver, kept whether or not the team has an endpoint, each with the id its deliveries carry as `webhook-id` and the `data` an endpoint receives ([event catalog](/docs/events), [v2 guide](/docs/v2#events)). A member sees the events of the leads they may read; `webhook.test`, `webhook.endpoint.disabled` and `v1.usage` (about the team’s endpoints and keys) only team admins see. Follow `nextCursor` while it is given; once it is null, poll on later from `pollCursor`. A cursor is bound to `types`. A cursor older than the log’s retention is `410` `cursor-expired`: resynchronise from scratch, then follow from a fresh cursor.',
      parameters: [
        { name: 'cursor', in: 'query', schema: { type: 'string' } },
        {
          name: 'types',
          in: 'query',
          description: 'A comma list of event types: only these. Absent: every type.',
          schema: { type: 'string' },
          example: 'lead.created,lead.updated',
        },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
      ],
      responses: {
        '200': {
          description: `Events in log order (types: ${TYPES.map((t) => `\`${t}\``).join(', ')}).`,
          headers: OK_HEADERS,
          content: json(
            {
              type: 'object',
              required: ['data'],
              properties: {
                data: {
                  type: 'object',
                  required: ['events', 'nextCursor', 'pollCursor'],
                  properties: {
                    events: { type: 'array', items: ref('LoggedEvent') },
                    nextCursor: { type: ['string', 'null'] },
                    pollCursor: { type: 'string' },
                  },
                },
              },
            },
            {
              data: {
                events: [
                  {
                    id: '01906a3c-4f2f-7000-8000-0000000000e1',
                    type: 'lead.created',
                    timestamp: '2024-07-01T12:11:02.417Z',
                    data: V2_LEAD_EXAMPLE,
                  },
                ],
                nextCursor: null,
                pollCursor: 'AjkQ…',
              },
            },
          ),
        },
        ...keyedProblems(['invalid-parameters', 'cursor-expired', ...KEYED_ERRORS]),
      },
    },
  ];
}
