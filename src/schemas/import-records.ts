import Type from 'typebox';
import { V1LeadOptionalMembers } from './v1-lead.js';

/** NDJSON import records (docs/import-format.md). Unknown members are refused, so typos surface. */
const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
/** From the Unix epoch to the end of the ECMAScript Date range: the epochs a v1 range can name (C3). */
const Epoch = Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000 });

export const TeamRecord = Type.Object(
  {
    type: Type.Literal('team'),
    id: Id,
    name: Type.String({ minLength: 1 }),
    timeZone: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const MemberRecord = Type.Object(
  {
    type: Type.Literal('member'),
    id: Id,
    teamId: Id,
    email: Type.String({ minLength: 3, pattern: '^[^@\\s]+@[^@\\s]+$' }),
    name: Type.Optional(Type.String()),
    role: Type.Optional(Type.Union([Type.Literal('admin'), Type.Literal('member')])),
    pid: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const SubteamRecord = Type.Object(
  {
    type: Type.Literal('subteam'),
    id: Id,
    teamId: Id,
    name: Type.String({ minLength: 1 }),
    members: Type.Optional(Type.Array(Id)),
    admins: Type.Optional(Type.Array(Id)),
  },
  { additionalProperties: false },
);

export const LeadRecord = Type.Object(
  {
    type: Type.Literal('lead'),
    id: Type.String({ minLength: 1 }),
    epoch: Epoch,
    userId: Id,
    time: Type.Optional(Type.String()),
    userEmail: Type.Optional(Type.String()),
    userPid: Type.Optional(Type.String()),
    locationShared: Type.Optional(Type.Boolean()),
    ...V1LeadOptionalMembers,
  },
  { additionalProperties: false },
);
