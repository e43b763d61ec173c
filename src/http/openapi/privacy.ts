import { ErasureBody, SubjectAccessBody } from '../../schemas/privacy.js';
import {
  ADMIN_ERRORS,
  BODY_ERRORS,
  type Json,
  json,
  KEYED_ERRORS,
  keyedProblems,
  OK_HEADERS,
  ref,
} from './build.js';
import { V2_LEAD_EXAMPLE } from './v2.js';

/** Personal data in the OpenAPI document (docs/privacy.md): erasure and its receipts. */

const one = { type: 'object', required: ['data'], properties: { data: ref('ErasureReceipt') } };
const RECEIPT_EXAMPLE = {
  data: {
    erasureId: '0196a2c4-7a10-7000-8000-00000000e1a5',
    teamId: 1,
    requestedAt: '2026-11-29T07:00:00.000Z',
    requestedBy: { via: 'key', keyId: 12, memberId: 11 },
    emailHash: 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00',
    leadIds: 0,
    counts: {
      leads: 2,
      mergedLeads: 0,
      searchRows: 2,
      webhookEvents: 3,
      webhookDeliveries: 3,
      webhookAttempts: 4,
      idempotencyKeys: 1,
    },
  },
};

const op = (operationId: string, summary: string, rest: Json): Json => ({
  operationId,
  tags: ['privacy'],
  summary,
  description:
    'Team admins only, for their own team ([privacy guide](/docs/privacy)). The e-mail goes in the body, never in the URL.',
  ...rest,
});

function erasureOperations(): Json[] {
  return [
    op('createErasure', 'Erase a person: every lead holding an e-mail, or leads by id', {
      body: ErasureBody,
      requestBody: {
        required: true,
        content: json(ref('ErasureBody'), { email: 'anna@example.com' }),
      },
      responses: {
        '201': {
          description:
            'Erased, in one transaction; the e-mail is suppressed from now on. The receipt never holds the e-mail.',
          headers: {
            ...OK_HEADERS,
            Location: { description: 'The receipt’s URL.', schema: { type: 'string' } },
          },
          content: json(one, RECEIPT_EXAMPLE),
        },
        ...keyedProblems([...BODY_ERRORS, ...ADMIN_ERRORS]),
      },
    }),
    op('getErasure', 'One erasure’s receipt', {
      parameters: [
        { name: 'erasureId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
      ],
      responses: {
        '200': { description: 'The receipt.', headers: OK_HEADERS, content: json(one, RECEIPT_EXAMPLE) },
        ...keyedProblems(['not-found', ...ADMIN_ERRORS]),
      },
    }),
  ];
}

/** A person's data in the OpenAPI document (docs/privacy.md): subject access. */

const INSTANT = { type: 'string', format: 'date-time' };

const DELIVERY: Json = {
  type: 'object',
  description: 'One delivery of a webhook event about the lead.',
  required: [
    'eventId',
    'type',
    'endpointId',
    'endpointHost',
    'createdAt',
    'state',
    'attempts',
    'lastAttemptAt',
  ],
  additionalProperties: false,
  properties: {
    eventId: { type: 'string', format: 'uuid', description: 'The event’s `id`, as the receiver got it.' },
    type: { type: 'string', examples: ['lead.created'] },
    endpointId: { type: 'string', format: 'uuid' },
    endpointHost: {
      type: 'string',
      description: 'The endpoint URL’s host (and port, when not the default): never its path or query.',
    },
    createdAt: { ...INSTANT, description: 'When the event was dispatched to the endpoint.' },
    state: { type: 'string', enum: ['pending', 'delivered', 'failed', 'dropped'] },
    attempts: { type: 'integer', minimum: 0 },
    lastAttemptAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'null before the first attempt.',
    },
  },
};

const PERSON_LEAD: Json = {
  type: 'object',
  required: ['lead', 'mergedInto', 'deliveries'],
  additionalProperties: false,
  properties: {
    lead: ref('V2Lead'),
    mergedInto: {
      type: ['string', 'null'],
      format: 'uuid',
      description:
        'The lead this one was merged into; null when it is not merged. A merged lead still holds the person’s data.',
    },
    deliveries: { type: 'array', items: DELIVERY },
  },
};

function subjectAccessOperations(): Json[] {
  return [
    {
      operationId: 'subjectAccess',
      tags: ['privacy'],
      summary: 'Everything held about one person, by their e-mail',
      description:
        'Every lead whose e-mail is this address (trimmed, lower case) among the leads the key may read — merged leads too — with the webhook deliveries that carried them ([Subject access](/docs/privacy#subject-access)). The e-mail goes in the body, never in the URL.',
      body: SubjectAccessBody,
      requestBody: {
        required: true,
        content: json(ref('SubjectAccessBody'), { email: 'tobi@example.com' }),
      },
      responses: {
        '200': {
          description: 'The person’s leads; an empty list when the key may read none.',
          headers: OK_HEADERS,
          content: json(
            {
              type: 'object',
              required: ['data'],
              properties: {
                data: {
                  type: 'object',
                  required: ['email', 'answeredAt', 'leads'],
                  additionalProperties: false,
                  properties: {
                    email: { type: 'string', description: 'The address as compared: trimmed, lower case.' },
                    answeredAt: INSTANT,
                    leads: { type: 'array', items: PERSON_LEAD },
                  },
                },
              },
            },
            {
              data: {
                email: 'tobi@example.com',
                answeredAt: '2024-07-02T09:00:00.000Z',
                leads: [
                  {
                    lead: V2_LEAD_EXAMPLE,
                    mergedInto: null,
                    deliveries: [
                      {
                        eventId: '01906a3c-5000-7a10-8b3c-2d4e5f607182',
                        type: 'lead.created',
                        endpointId: '01906a3c-4000-7a10-8b3c-2d4e5f607182',
                        endpointHost: 'hooks.example.com',
                        createdAt: '2024-07-01T12:11:03.000Z',
                        state: 'delivered',
                        attempts: 1,
                        lastAttemptAt: '2024-07-01T12:11:03.210Z',
                      },
                    ],
                  },
                ],
              },
            },
          ),
        },
        ...keyedProblems([...BODY_ERRORS, ...KEYED_ERRORS]),
      },
    },
  ];
}

/** The privacy operations: subject access, erasure and its receipts (docs/privacy.md). */
export function privacyOperations(): Json[] {
  return [...subjectAccessOperations(), ...erasureOperations()];
}
