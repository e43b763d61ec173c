import { ErasureBody } from '../../schemas/privacy.js';
import type { ErrorCode } from '../../shared/errors.js';
import { COMMON_HEADERS, headerRef, type Json, json, keyedProblems, QUOTA_HEADERS, ref } from './build.js';

/** Personal data in the OpenAPI document (docs/privacy.md): erasure and its receipts. */

const OK_HEADERS = { ...COMMON_HEADERS, ...QUOTA_HEADERS, 'Cache-Control': headerRef('CacheControl') };
const COMMON: ErrorCode[] = [
  'unauthorized',
  'forbidden',
  'rate-limited',
  'auth-throttled',
  'store-unavailable',
];
const BODY_ERRORS: ErrorCode[] = [
  'invalid-parameters',
  'invalid-request',
  'payload-too-large',
  'unsupported-media-type',
];
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

export function privacyOperations(): Json[] {
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
        ...keyedProblems([...BODY_ERRORS, ...COMMON]),
      },
    }),
    op('getErasure', 'One erasure’s receipt', {
      parameters: [
        { name: 'erasureId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
      ],
      responses: {
        '200': { description: 'The receipt.', headers: OK_HEADERS, content: json(one, RECEIPT_EXAMPLE) },
        ...keyedProblems(['not-found', ...COMMON]),
      },
    }),
  ];
}
