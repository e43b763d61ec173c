import { type Static, Type } from 'typebox';
import { CreateBody } from './v2.js';

/**
 * The body of a lead update: a JSON Merge Patch (RFC 7396) of the lead's writable members
 * (docs/v2.md "Update a lead"). A member left out stays; `null` removes a value. The contact
 * members are those of creation, with the same limits; `userPid`, the ids, the times, the
 * collector and `leadSource` are not writable.
 */
export const LeadPatch = Type.Object(
  {
    locationShared: Type.Optional(
      Type.Union([Type.Boolean(), Type.Null()], {
        description: 'The lead approves sharing its location; false (or null) removes its coordinates.',
      }),
    ),
    systemFields: Type.Optional(CreateBody.properties.systemFields),
  },
  { additionalProperties: false },
);
export type LeadPatch = Static<typeof LeadPatch>;

/** Members of a lead that exist but cannot be changed, with why (a clearer 400 than "unknown field"). */
export const READ_ONLY_MEMBERS: Record<string, string> = {
  '/leadId': "is the lead's id and cannot be changed",
  '/legacyLeadId': "is the lead's v1 id and cannot be changed",
  '/createdAt': 'is when the lead was stored and cannot be changed',
  '/captureDatetime': "identifies the lead's capture and cannot be changed",
  '/assignedMembers': 'is the collector and cannot be changed',
  '/leadSource': 'is how the lead was collected and cannot be changed',
  '/v1Fields': 'holds v1 members as collected and cannot be changed',
  '/systemFields/userPid': "is the collector's profile id and cannot be changed",
};

const LeadId = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'A leadId.',
});

/** The body of a merge (docs/v2.md "Merge leads"): the leads folded into the one the path names. */
export const MergeBody = Type.Object(
  {
    mergeLeadIds: Type.Array(LeadId, {
      minItems: 1,
      maxItems: 10,
      description:
        'The leads merged into this one, 1 to 10, of the same team; where this lead has no value, the first of them that has one gives it.',
    }),
  },
  { additionalProperties: false },
);
export type MergeBody = Static<typeof MergeBody>;

/** The body of a duplicates search (docs/v2.md "Find duplicates"). */
export const DuplicatesBody = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        default: 20,
        description: 'At most this many groups, the largest first.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type DuplicatesBody = Static<typeof DuplicatesBody>;
