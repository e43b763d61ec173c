import { AUDIT_ACTIONS } from '../../audit/audit.port.js';
import type { ErrorCode } from '../../shared/errors.js';
import { COMMON_HEADERS, headerRef, type Json, json, keyedProblems, QUOTA_HEADERS } from './build.js';
import { op as consoleOp, page, refusals, team } from './console-parts.js';

/** The audit log in the OpenAPI document (docs/privacy.md "Audit log"): its API read and its console page. */

const OK_HEADERS = { ...COMMON_HEADERS, ...QUOTA_HEADERS, 'Cache-Control': headerRef('CacheControl') };
const PROBLEMS: ErrorCode[] = [
  'invalid-parameters',
  'unauthorized',
  'forbidden',
  'rate-limited',
  'auth-throttled',
  'store-unavailable',
];

const ACTOR: Json = {
  description:
    'Who acted: an API key (and its member), a team admin in the console, the operator (command line or the console’s operator session), or the server (scheduled jobs).',
  oneOf: [
    {
      type: 'object',
      required: ['via', 'keyId', 'memberId'],
      additionalProperties: false,
      properties: { via: { const: 'key' }, keyId: { type: 'integer' }, memberId: { type: 'integer' } },
    },
    {
      type: 'object',
      required: ['via', 'memberId'],
      additionalProperties: false,
      properties: { via: { const: 'console' }, memberId: { type: 'integer' } },
    },
    {
      type: 'object',
      required: ['via'],
      additionalProperties: false,
      properties: { via: { enum: ['operator', 'server'] } },
    },
  ],
};

const RECORD: Json = {
  type: 'object',
  required: ['id', 'at', 'teamId', 'actor', 'action', 'details'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'Increasing across the store.' },
    at: { type: 'string', format: 'date-time' },
    teamId: { type: ['integer', 'null'], description: 'null: not about one team (a brownout).' },
    actor: ACTOR,
    action: { type: 'string', enum: [...AUDIT_ACTIONS] },
    details: {
      type: 'object',
      description: 'Ids, counts and event types the action touched: never a personal value.',
    },
  },
};

const EXAMPLE = {
  id: '42',
  at: '2026-11-29T07:00:00.000Z',
  teamId: 1,
  actor: { via: 'key', keyId: 12, memberId: 11 },
  action: 'webhook.created',
  details: { endpointId: '0196a2c4-7a10-7000-8000-00000000e1a5', eventTypes: ['lead.created'] },
};

export function auditOperations(): Json[] {
  return [
    {
      operationId: 'listAudit',
      tags: ['privacy'],
      summary: 'The team’s audit log, newest first',
      description:
        'Team admins only, for their own team ([Audit log](/docs/privacy#audit-log)): who changed keys, webhook endpoints and leads, who erased and who asked for a person’s data, and bulk reads. A page and `nextCursor` (null on the last page); `format=ndjson` streams every matching record instead, one JSON object a line.',
      parameters: [
        { name: 'cursor', in: 'query', schema: { type: 'string' } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
        { name: 'action', in: 'query', schema: { type: 'string', enum: [...AUDIT_ACTIONS] } },
        {
          name: 'since',
          in: 'query',
          description: 'Records at or after this instant.',
          schema: { type: 'string', format: 'date-time' },
        },
        {
          name: 'format',
          in: 'query',
          description: '`ndjson`: every matching record, streamed (no `limit` or `cursor` with it).',
          schema: { type: 'string', enum: ['ndjson'] },
        },
      ],
      responses: {
        '200': {
          description: 'A page of records, newest first; with `format=ndjson`, every record, one a line.',
          headers: OK_HEADERS,
          content: {
            ...json(
              {
                type: 'object',
                required: ['data'],
                properties: {
                  data: {
                    type: 'object',
                    required: ['records', 'nextCursor'],
                    additionalProperties: false,
                    properties: {
                      records: { type: 'array', items: RECORD },
                      nextCursor: { type: ['string', 'null'] },
                    },
                  },
                },
              },
              { data: { records: [EXAMPLE], nextCursor: null } },
            ),
            // Each line is one record; the contract test checks every line against this schema.
            'application/x-ndjson': { schema: RECORD, example: EXAMPLE },
          },
        },
        ...keyedProblems(PROBLEMS),
      },
    },
    consoleOp('consoleAudit', 'Console: the team’s audit log, newest first', {
      parameters: [team, { name: 'before', in: 'query', schema: { type: 'string', pattern: '^[0-9]+$' } }],
      responses: { '200': page('A page of the audit log.'), ...refusals },
    }),
  ];
}
