import { DuplicatesBody, MergeBody } from '../../schemas/lead-patch.js';
import { CreateBody, SearchBody } from '../../schemas/v2.js';
import type { ErrorCode } from '../../shared/errors.js';
import { BODY_ERRORS, type Json, json, KEYED_ERRORS, keyedProblems, OK_HEADERS, ref } from './build.js';

/** v2 in the OpenAPI document: search, the change feed, get, create and the key's own view. */

/** What changing one lead (update, merge) may answer beyond a body's problems. */
const LEAD_CHANGE_ERRORS: ErrorCode[] = [
  ...BODY_ERRORS,
  'forbidden',
  'not-found',
  'lead-merged',
  'precondition-failed',
  'precondition-required',
  ...KEYED_ERRORS,
];

export const V2_LEAD_EXAMPLE = {
  leadId: '01906a3c-4f2e-7a10-8b3c-2d4e5f607182',
  legacyLeadId: '30008',
  assignedMembers: [1013],
  leadSource: 'BUSINESS_CARD_SCAN',
  captureDatetime: '2024-07-01T12:10:00.000Z',
  createdAt: '2024-07-01T12:11:02.417Z',
  systemFields: {
    firstName: 'Tobi',
    lastName: 'Berg',
    fullName: 'Tobi Berg',
    email: 'tobi@example.com',
    phone: null,
    companyName: 'Spree Leads GmbH',
    jobTitle: 'Buyer',
    website: null,
    linkedinUrl: null,
    twitterUrl: null,
    address: null,
    note: null,
    bio: null,
    profileImageUrl: null,
    businessCardImageUrl: null,
    location: { label: 'Berlin', latitude: 52.52, longitude: 13.405 },
    userPid: '7013',
  },
  v1Fields: {
    time: '2024-07-01 14:10:00',
    userEmail: 'mia@example.com',
    isManual: false,
    isScan: true,
    isRoll: false,
    lat: '52.5200',
    long: '13.4050',
  },
};

/** An event stream's bookmark (docs/v2.md "Waiting for changes"): only a new resume point. */
export const FEED_BOOKMARK: Json = {
  type: 'object',
  required: ['cursor'],
  additionalProperties: false,
  properties: { cursor: { type: 'string' } },
};

/** A merged lead's entry in the change feed (docs/v2.md "Lead changes"): a follower deletes it. */
const MERGED_ENTRY: Json = {
  type: 'object',
  required: ['leadId', 'mergedInto'],
  additionalProperties: false,
  properties: {
    leadId: { type: 'string', format: 'uuid' },
    mergedInto: { type: 'string', format: 'uuid', description: 'The lead it was merged into.' },
  },
};

/** An erased lead's entry in the change feed (docs/privacy.md "Erasure"): a follower deletes it. */
const ERASED_ENTRY: Json = {
  type: 'object',
  required: ['leadId', 'erased'],
  additionalProperties: false,
  properties: {
    leadId: { type: 'string', format: 'uuid' },
    erased: { type: 'boolean', const: true, description: 'The lead was erased: delete every copy of it.' },
  },
};

const page = (extra: Json = {}, item: Json = ref('V2Lead')): Json => ({
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'object',
      required: ['leads', 'nextCursor', ...Object.keys(extra)],
      properties: {
        leads: { type: 'array', items: item },
        nextCursor: { type: ['string', 'null'] },
        ...extra,
      },
    },
  },
});
const one = { type: 'object', required: ['data'], properties: { data: ref('V2Lead') } };

const ETAG = {
  ETag: {
    description:
      'The lead’s version, a strong entity tag (`"3"`): send it as `If-Match` to change the lead only at that version.',
    schema: { type: 'string', examples: ['"1"'] },
  },
};
const LEAD_ID = { name: 'leadId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const IF_MATCH = {
  name: 'If-Match',
  in: 'header',
  description:
    'The lead’s ETag as last read: the change happens only while the lead is at that version (else `412`). `*` or no header: the lead as it is — unless the service requires If-Match (`428`).',
  schema: { type: 'string' },
  example: '"3"',
};

/** A group of leads that share a contact value (docs/v2.md "Find duplicates"). */
const DUPLICATE_GROUP: Json = {
  type: 'object',
  required: ['matchedOn', 'leads'],
  additionalProperties: false,
  properties: {
    matchedOn: {
      type: 'array',
      description: 'The normalised values at least two of the group’s leads share.',
      items: {
        type: 'object',
        required: ['field', 'value'],
        additionalProperties: false,
        properties: {
          field: { enum: ['email', 'phone'] },
          value: { type: 'string', description: 'The e-mail trimmed and in lower case; the phone’s digits.' },
        },
      },
    },
    leads: { type: 'array', items: ref('V2Lead'), description: 'Oldest stored first.' },
  },
};

export function v2Operations(): Json[] {
  const op = (operationId: string, summary: string, rest: Json): Json => ({
    operationId,
    tags: ['v2'],
    summary,
    ...rest,
  });
  return [
    op('searchLeads', 'Search leads: one scope, filters, text clauses, a keyset cursor', {
      description:
        'The successor of every v1 operation ([v2 guide](/docs/v2), [moving off v1](/docs/v1-migration)).',
      body: SearchBody,
      requestBody: {
        required: true,
        content: json(ref('SearchBody'), {
          filters: { teamId: 1, startTime: '2024-07-01T00:00:00Z', leadSource: ['BUSINESS_CARD_SCAN'] },
          query: [{ fields: ['fullName', 'companyName'], value: 'spree', match: 'FUZZY' }],
          sort: { field: 'timestamp', direction: 'DESC' },
          limit: 100,
        }),
      },
      responses: {
        '200': {
          description: 'A page of leads; `nextCursor` null on the last page.',
          headers: OK_HEADERS,
          content: json(page(), { data: { leads: [V2_LEAD_EXAMPLE], nextCursor: null } }),
        },
        ...keyedProblems([
          'invalid-parameters',
          'invalid-request',
          'forbidden',
          'not-found',
          'payload-too-large',
          'unsupported-media-type',
          ...KEYED_ERRORS,
        ]),
      },
    }),
    op('leadChanges', 'Every lead the key may see, in the order they were stored', {
      description:
        'Follow `nextCursor` while it is given; once it is null, poll on later from `pollCursor`. Late uploads appear after everything stored before them. With `wait`, an empty page is held until something new is stored for the key or the seconds pass (long-poll); with `Accept: text/event-stream`, the feed is a stream of Server-Sent Events that stays open ([Waiting for changes](/docs/v2#waiting-for-changes-long-poll-and-server-sent-events)).',
      parameters: [
        { name: 'cursor', in: 'query', schema: { type: 'string' } },
        {
          name: 'limit',
          in: 'query',
          description: 'Leads per page; on an event stream, per read.',
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
            'Event stream only: where to resume — the id of the last event received (an EventSource sends it when it reconnects). Wins over `cursor`.',
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': {
          description:
            'Leads in the order of their last change; a merged lead as `{leadId, mergedInto}`, an erased one as `{leadId, erased: true}`. With `Accept: text/event-stream`: Server-Sent Events — each lead an event `lead` whose `id` is the cursor after it and whose `data` is the lead as in a page; a `bookmark` event (data `{"cursor": …}`) when a stream catches up before it sent anything; a comment `: heartbeat` every `LEADLINE_FEED_HEARTBEAT_SECONDS` (15 by default).',
          headers: OK_HEADERS,
          content: {
            ...json(
              page(
                { pollCursor: { type: 'string' } },
                { oneOf: [ref('V2Lead'), MERGED_ENTRY, ERASED_ENTRY] },
              ),
            ),
            // Each event's `data` is one of these.
            'text/event-stream': {
              schema: { oneOf: [ref('V2Lead'), MERGED_ENTRY, ERASED_ENTRY, FEED_BOOKMARK] },
              // One event's `data` (the stream's framing is in the description above).
              example: V2_LEAD_EXAMPLE,
            },
          },
        },
        ...keyedProblems(['invalid-parameters', ...KEYED_ERRORS]),
      },
    }),
    op('getLead', 'One lead by its leadId', {
      parameters: [LEAD_ID],
      responses: {
        '200': {
          description: 'The lead, its version in ETag.',
          headers: { ...OK_HEADERS, ...ETAG },
          content: json(one, { data: V2_LEAD_EXAMPLE }),
        },
        ...keyedProblems(['not-found', 'lead-merged', ...KEYED_ERRORS]),
      },
    }),
    op('getMe', 'The key, its member, team, role and scopes', {
      responses: {
        '200': {
          description: 'The key, its member and team, and its scopes.',
          headers: OK_HEADERS,
          content: json(ref('V2Me')),
        },
        ...keyedProblems(KEYED_ERRORS),
      },
    }),
    op('getDeprecations', 'The v1 operations this key (or the team’s keys) called, and what replaces each', {
      description:
        'From the usage ledger (written every few seconds): each v1 operation called in the last `days` days with its count by status, first and last call, user agent and the v2 request that replaces it; and where each key stands — served, frozen out, the brownouts ahead of it, the sunset ([Your own deprecated calls](/docs/v1-migration#your-own-deprecated-calls)). Any valid key may ask, one that v1 refuses too.',
      parameters: [
        {
          name: 'scope',
          in: 'query',
          description: '`key`: the presented key; `team`: every key of the team (team admins only).',
          schema: { type: 'string', enum: ['key', 'team'], default: 'key' },
        },
        {
          name: 'days',
          in: 'query',
          description: 'The window in UTC days, today included.',
          schema: { type: 'integer', minimum: 1, maximum: 366, default: 30 },
        },
      ],
      responses: {
        '200': {
          description: 'The key’s (or keys’) deprecated calls and standing.',
          headers: OK_HEADERS,
          content: json(ref('V2Deprecations')),
        },
        ...keyedProblems(['invalid-parameters', 'forbidden', ...KEYED_ERRORS]),
      },
    }),
    op('createLead', 'Create a lead for the key’s member', {
      parameters: [
        {
          name: 'Idempotency-Key',
          in: 'header',
          description: 'A retry with the same key and body answers the same lead and stores nothing new.',
          schema: { type: 'string', maxLength: 255 },
        },
      ],
      body: CreateBody,
      requestBody: {
        required: true,
        content: json(ref('CreateBody'), {
          leadSource: 'PROFILE_CONNECTION',
          captureDatetime: '2024-07-01T12:10:00Z',
          systemFields: { fullName: 'Ada Lovelace', email: 'ada@example.com' },
        }),
      },
      responses: {
        '201': {
          description: 'The lead, created (or replayed). A new lead’s ETag is `"1"`; a replay carries none.',
          headers: {
            ...OK_HEADERS,
            ...ETAG,
            Location: { description: 'The lead’s URL.', schema: { type: 'string' } },
            'Idempotent-Replayed': {
              description:
                '`true` when the answer is a retry’s: the lead was created by an earlier request with this Idempotency-Key.',
              schema: { type: 'string', const: 'true' },
            },
          },
          content: json(one),
        },
        ...keyedProblems([...BODY_ERRORS, 'idempotency-conflict', 'email-suppressed', ...KEYED_ERRORS]),
      },
    }),
    op('updateLead', 'Update a lead: a JSON Merge Patch of its writable members', {
      description:
        'A member left out stays; `null` removes a value. Every change is announced (`lead.updated`) and moves the lead to the end of the change feed ([Update a lead](/docs/v2#update-a-lead)).',
      parameters: [LEAD_ID, IF_MATCH],
      requestBody: {
        required: true,
        content: {
          'application/merge-patch+json': {
            schema: ref('LeadPatch'),
            example: { systemFields: { email: 'anna@new.example.com', jobTitle: 'CTO', phone: null } },
          },
          'application/json': { schema: ref('LeadPatch') },
        },
      },
      responses: {
        '200': {
          description: 'The lead as it is now, its new version in ETag.',
          headers: { ...OK_HEADERS, ...ETAG },
          content: json(one, { data: V2_LEAD_EXAMPLE }),
        },
        ...keyedProblems([...LEAD_CHANGE_ERRORS, 'email-suppressed']),
      },
    }),
    op('mergeLeads', 'Merge leads into this one', {
      description:
        'The leads named are merged into the lead of the path: it keeps its id and takes their values where it has none; each merged lead answers `410` from then on ([Merge leads](/docs/v2#merge-leads)).',
      parameters: [LEAD_ID, IF_MATCH],
      body: MergeBody,
      requestBody: {
        required: true,
        content: json(ref('MergeBody'), { mergeLeadIds: ['01906a3c-5b11-7c20-9d4e-3f5a6b7c8d9e'] }),
      },
      responses: {
        '200': {
          description: 'The surviving lead as it is now, its version in ETag.',
          headers: { ...OK_HEADERS, ...ETAG },
          content: json(one, { data: V2_LEAD_EXAMPLE }),
        },
        ...keyedProblems(LEAD_CHANGE_ERRORS),
      },
    }),
    op('findDuplicates', 'Groups of leads that share an e-mail or phone', {
      description:
        'Among the leads the key may read: leads linked by a shared normalised e-mail or phone form a group, the largest groups first ([Find duplicates](/docs/v2#find-duplicates)).',
      body: DuplicatesBody,
      requestBody: { required: true, content: json(ref('DuplicatesBody'), { limit: 20 }) },
      responses: {
        '200': {
          description: 'The groups; an empty list when there are none.',
          headers: OK_HEADERS,
          content: json(
            {
              type: 'object',
              required: ['data'],
              properties: {
                data: {
                  type: 'object',
                  required: ['groups'],
                  properties: { groups: { type: 'array', items: DUPLICATE_GROUP } },
                },
              },
            },
            {
              data: {
                groups: [
                  {
                    matchedOn: [{ field: 'email', value: 'tobi@example.com' }],
                    leads: [V2_LEAD_EXAMPLE],
                  },
                ],
              },
            },
          ),
        },
        ...keyedProblems([...BODY_ERRORS, ...KEYED_ERRORS]),
      },
    }),
  ];
}
