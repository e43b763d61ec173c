import { LOGGED_EVENT_TYPES } from '../../webhooks/webhook.js';
import { type Json, json, KEYED_ERRORS, keyedProblems, OK_HEADERS, ref } from './build.js';
import { FEED_BOOKMARK, V2_LEAD_EXAMPLE } from './v2.js';

/** The event log in the OpenAPI document (docs/v2.md "Events"). */

const TYPES = LOGGED_EVENT_TYPES;

export function eventOperations(): Json[] {
  return [
    {
      operationId: 'listEvents',
      tags: ['v2'],
      summary: 'The event log: every event the key may see, in the order it happened',
      description:
        'The events webhooks deliver, kept whether or not the team has an endpoint, each with the id its deliveries carry as `webhook-id` and the `data` an endpoint receives ([event catalog](/docs/events), [v2 guide](/docs/v2#events)). A member sees the events of the leads they may read; `webhook.test`, `webhook.endpoint.disabled` and `v1.usage` (about the team’s endpoints and keys) only team admins see. Follow `nextCursor` while it is given; once it is null, poll on later from `pollCursor`. A cursor is bound to `types`. With `wait`, an empty page is held until something new is stored for the key or the seconds pass (long-poll); with `Accept: text/event-stream`, the log is a stream of Server-Sent Events that stays open ([Waiting for changes](/docs/v2#waiting-for-changes-long-poll-and-server-sent-events)). A cursor older than the log’s retention is `410` `cursor-expired`: resynchronise from scratch, then follow from a fresh cursor.',
      parameters: [
        { name: 'cursor', in: 'query', schema: { type: 'string' } },
        {
          name: 'types',
          in: 'query',
          description: 'A comma list of event types: only these. Absent: every type.',
          schema: { type: 'string' },
          example: 'lead.created,lead.updated',
        },
        {
          name: 'limit',
          in: 'query',
          description: 'Events per page; on an event stream, per read.',
          schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
        },
        {
          name: 'wait',
          in: 'query',
          description:
            'Long-poll: when there is nothing after the cursor, hold the answer up to this many seconds until something new is stored for the key, then answer as usual — an empty page when the time passes. The most a server allows is `LEADLINE_FEED_MAX_WAIT_SECONDS` (30 by default); more is a 400. Ignored on an event stream.',
          schema: { type: 'integer', minimum: 0, default: 0 },
        },
        {
          name: 'Last-Event-ID',
          in: 'header',
          description:
            'Event stream only: where to resume — the id of the last event received (an EventSource sends it when it reconnects). Wins over `cursor`; bound to `types` as a cursor is. Behind the log’s retention: `410` `cursor-expired`, before the stream starts.',
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': {
          description: `Events in log order (types: ${TYPES.map((t) => `\`${t}\``).join(', ')}). With \`Accept: text/event-stream\`: Server-Sent Events — each event an SSE event named by its \`type\`, whose \`id\` is the cursor after it and whose \`data\` is the event as in a page; a \`bookmark\` event (data \`{"cursor": …}\`) whenever the stream's position moved past events the key may not see or \`types\` left out, or it caught up before it sent anything; a comment \`: heartbeat\` every \`LEADLINE_FEED_HEARTBEAT_SECONDS\` (15 by default).`,
          headers: OK_HEADERS,
          content: {
            'text/event-stream': {
              schema: { oneOf: [ref('LoggedEvent'), FEED_BOOKMARK] },
              // One event's `data` (the stream's framing is in the description above).
              example: {
                id: '01906a3c-4f2f-7000-8000-0000000000e1',
                type: 'lead.created',
                timestamp: '2024-07-01T12:11:02.417Z',
                data: V2_LEAD_EXAMPLE,
              },
            },
            ...json(
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
        },
        ...keyedProblems(['invalid-parameters', 'cursor-expired', ...KEYED_ERRORS]),
      },
    },
  ];
}
