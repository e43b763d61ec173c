import Type, { type Static } from 'typebox';
import { LEAD_SOURCES, TEXT_FIELDS } from './lead-vocabulary.js';

/**
 * The v2 wire contract (docs/v2.md): request bodies are closed objects —
 * an unknown member anywhere is a 400 naming it — and every schema carries the description the
 * OpenAPI document shows.
 */

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const IdList = (description: string) =>
  Type.Array(Id, { minItems: 1, maxItems: 100, uniqueItems: true, description });
/** ISO-8601 with an explicit offset (`Z` or `±hh:mm`), milliseconds optional. */
export const ISO_WITH_OFFSET =
  '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})$';
const Instant = (description: string) => Type.String({ pattern: ISO_WITH_OFFSET, description });

export const LeadSourceSchema = Type.Enum([...LEAD_SOURCES], { description: 'How the lead was collected.' });

export const SearchFilters = Type.Object(
  {
    teamId: Type.Optional({ ...Id, description: "The caller's team: every lead of it (team admins)." }),
    subteamIds: Type.Optional(
      IdList("Leads of these subteams' current members (their admins, team admins)."),
    ),
    assignedMemberIds: Type.Optional(IdList('Leads collected by these members.')),
    startTime: Type.Optional(Instant('Capture time from (inclusive).')),
    endTime: Type.Optional(Instant('Capture time until (exclusive).')),
    leadSource: Type.Optional(
      Type.Array(LeadSourceSchema, { minItems: 1, uniqueItems: true, description: 'Any of these sources.' }),
    ),
    hasEmail: Type.Optional(
      Type.Boolean({ description: 'Only leads with (true) or without (false) an e-mail.' }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Exactly one scope (teamId, subteamIds or assignedMemberIds) and optional conditions.',
  },
);

export const QueryClause = Type.Object(
  {
    fields: Type.Array(Type.Enum([...TEXT_FIELDS]), {
      minItems: 1,
      uniqueItems: true,
      description: 'The clause matches when any of these fields does.',
    }),
    value: Type.String({ minLength: 1, maxLength: 200 }),
    match: Type.Enum(['EXACT', 'FUZZY'], {
      description:
        'EXACT: the whole field equals the value, ignoring case and accents. FUZZY: similar text, tolerating typos and matching a part of the field (at least 3 characters).',
    }),
  },
  { additionalProperties: false },
);

export const SearchBody = Type.Object(
  {
    filters: SearchFilters,
    query: Type.Optional(Type.Array(QueryClause, { maxItems: 10, description: 'Every clause must match.' })),
    sort: Type.Optional(
      Type.Object(
        {
          field: Type.Literal('timestamp'),
          direction: Type.Enum(['ASC', 'DESC'], {
            description: 'DESC (default): newest capture first. ASC: oldest first.',
          }),
        },
        { additionalProperties: false },
      ),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Page size, default 100.' })),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2000, description: 'nextCursor of the previous page.' }),
    ),
  },
  { additionalProperties: false },
);
export type SearchBody = Static<typeof SearchBody>;

const Text = (max: number) => Type.Union([Type.String({ maxLength: max }), Type.Null()]);

export const CreateBody = Type.Object(
  {
    leadSource: LeadSourceSchema,
    captureDatetime: Type.Optional(Instant('When the lead was collected; default: now.')),
    locationShared: Type.Optional(
      Type.Boolean({
        description: 'The lead approved sharing its location; without it coordinates are dropped.',
      }),
    ),
    userPid: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "Default: the member's profile id." }),
    ),
    systemFields: Type.Object(
      {
        firstName: Type.Optional(Text(200)),
        lastName: Type.Optional(Text(200)),
        fullName: Type.Optional(Text(400)),
        email: Type.Optional(Text(320)),
        phone: Type.Optional(Text(50)),
        companyName: Type.Optional(Text(400)),
        jobTitle: Type.Optional(Text(400)),
        website: Type.Optional(Text(2000)),
        linkedinUrl: Type.Optional(Text(2000)),
        twitterUrl: Type.Optional(Text(2000)),
        address: Type.Optional(Text(1000)),
        note: Type.Optional(Text(10_000)),
        bio: Type.Optional(Text(10_000)),
        profileImageUrl: Type.Optional(Text(2000)),
        businessCardImageUrl: Type.Optional(Text(2000)),
        location: Type.Optional(
          Type.Union([
            Type.Object(
              {
                label: Type.Optional(Text(400)),
                latitude: Type.Optional(
                  Type.Union([Type.Number({ minimum: -90, maximum: 90 }), Type.Null()]),
                ),
                longitude: Type.Optional(
                  Type.Union([Type.Number({ minimum: -180, maximum: 180 }), Type.Null()]),
                ),
              },
              { additionalProperties: false },
            ),
            Type.Null(),
          ]),
        ),
      },
      { additionalProperties: false, description: 'The contact; unset or null members are left out.' },
    ),
  },
  { additionalProperties: false },
);
export type CreateBody = Static<typeof CreateBody>;

const Nullable = Type.Union([Type.String(), Type.Null()]);

export const V2Lead = Type.Object(
  {
    leadId: Type.String({ format: 'uuid' }),
    legacyLeadId: Type.String({ description: 'The v1 `id`.' }),
    assignedMembers: Type.Array(Type.Integer(), { description: 'The collecting member (v1 userId).' }),
    leadSource: LeadSourceSchema,
    captureDatetime: Type.String({ description: 'v1 epoch as ISO-8601 UTC with milliseconds.' }),
    createdAt: Type.String({ description: 'When the service stored the lead.' }),
    systemFields: Type.Object({
      firstName: Nullable,
      lastName: Nullable,
      fullName: Nullable,
      email: Nullable,
      phone: Nullable,
      companyName: Nullable,
      jobTitle: Nullable,
      website: Nullable,
      linkedinUrl: Nullable,
      twitterUrl: Nullable,
      address: Nullable,
      note: Nullable,
      bio: Nullable,
      profileImageUrl: Nullable,
      businessCardImageUrl: Nullable,
      location: Type.Union([
        Type.Object({
          label: Nullable,
          latitude: Type.Union([Type.Number(), Type.Null()]),
          longitude: Type.Union([Type.Number(), Type.Null()]),
        }),
        Type.Null(),
      ]),
      userPid: Type.String(),
    }),
    v1Fields: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Every v1 member without a v2 field of its own, verbatim (time, userEmail, flags, counters, crm, …), and lat/long as their v1 text (consent only).',
    }),
  },
  { additionalProperties: false },
);
export type V2Lead = Static<typeof V2Lead>;
