import Type, { type Static } from 'typebox';

/**
 * GET /api/pub/v2/me: who the presented key acts as — its member, team and role — and what it
 * may do (`scopes`), so an integration (or a person with a key in hand) can check a key without
 * the operator's CLI.
 */

export const V2_SCOPES = [
  'leads:read:own',
  'leads:read:subteams',
  'leads:read:team',
  'leads:create',
  'v1',
] as const;

const Time = (description: string) => Type.String({ format: 'date-time', description });
const NullableTime = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const V2Me = Type.Object(
  {
    data: Type.Object({
      key: Type.Object({
        id: Type.Integer({ description: 'The key id (`leadline keys list`).' }),
        prefix: Type.String({ description: 'The first 12 characters of the key, never the secret.' }),
        label: Type.Union([Type.String(), Type.Null()], {
          description: 'What the key is for, as its maker noted.',
        }),
        createdAt: Time('When the key was made.'),
        expiresAt: NullableTime('When the key stops working; null: never.'),
        legacyV1: Type.Boolean({ description: 'Whether the key was granted v1 access after the v1 freeze.' }),
      }),
      member: Type.Object({
        id: Type.Integer({ description: 'The member the key acts as (`userId` of their leads).' }),
        email: Type.String(),
        name: Type.Union([Type.String(), Type.Null()]),
        role: Type.Enum(['admin', 'member'], { description: "The member's role on the team." }),
      }),
      team: Type.Object({
        id: Type.Integer({ description: 'The team id: the `teamId` a search of the whole team gives.' }),
        name: Type.String(),
      }),
      administeredSubteamIds: Type.Array(Type.Integer(), {
        description: 'Subteams the member administers: the `subteamIds` their searches may give.',
      }),
      scopes: Type.Array(Type.Enum([...V2_SCOPES]), {
        description:
          'What the key may do now: leads:read:own (its member’s leads), leads:read:subteams (the subteams it administers), leads:read:team (team admins: the whole team), leads:create, v1 (v1 calls answer: before the sunset, a key made before the freeze or granted legacy v1 access; brownouts aside).',
      }),
    }),
  },
  { description: 'The key, its member and team, and its scopes.' },
);

export type V2MeBody = Static<typeof V2Me>;
